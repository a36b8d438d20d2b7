package dev.ax.scheduler;

class PostgresRunServiceTest extends RunServiceContractTest {
    @Override
    boolean postgres() {
        return true;
    }
}
