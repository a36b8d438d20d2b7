package dev.ax.scheduler;

class H2FollowUpTest extends FollowUpContractTest {
    @Override
    boolean postgres() {
        return false;
    }
}
