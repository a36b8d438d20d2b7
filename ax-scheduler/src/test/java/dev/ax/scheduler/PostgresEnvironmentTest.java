package dev.ax.scheduler;

class PostgresEnvironmentTest extends EnvironmentContractTest {
    @Override
    boolean postgres() {
        return true;
    }
}
