package dev.ax.scheduler;

class H2RunServiceTest extends RunServiceContractTest {
    @Override
    boolean postgres() {
        return false;
    }
}
