package dev.ax.scheduler;

class H2EnvironmentTest extends EnvironmentContractTest {
    @Override
    boolean postgres() {
        return false;
    }
}
