package dev.ax.scheduler;

class PostgresTestRunTest extends TestRunContractTest {
    @Override
    boolean postgres() {
        return true;
    }
}
