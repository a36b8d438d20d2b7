package dev.ax.scheduler;

class H2CanaryTest extends CanaryContractTest {
    @Override
    boolean postgres() {
        return false;
    }
}
