package dev.ax.scheduler;

class PostgresCanaryTest extends CanaryContractTest {
    @Override
    boolean postgres() {
        return true;
    }
}
