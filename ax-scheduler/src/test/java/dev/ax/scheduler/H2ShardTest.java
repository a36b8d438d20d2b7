package dev.ax.scheduler;

class H2ShardTest extends ShardContractTest {
    @Override
    boolean postgres() {
        return false;
    }
}
