package dev.ax.scheduler;

class PostgresRetentionTest extends RetentionContractTest {
    @Override
    boolean postgres() {
        return true;
    }
}
