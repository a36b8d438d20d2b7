package dev.ax.scheduler;

class H2SuccessGroupTest extends SuccessGroupContractTest {
    @Override
    boolean postgres() {
        return false;
    }
}
