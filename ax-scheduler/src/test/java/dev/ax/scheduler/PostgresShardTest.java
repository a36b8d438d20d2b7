package dev.ax.scheduler;

class PostgresShardTest extends ShardContractTest {
    @Override
    boolean postgres() {
        return true;
    }
}
