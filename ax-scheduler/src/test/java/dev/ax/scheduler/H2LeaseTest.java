package dev.ax.scheduler;

class H2LeaseTest extends LeaseContractTest {
    @Override
    boolean postgres() {
        return false;
    }
}
