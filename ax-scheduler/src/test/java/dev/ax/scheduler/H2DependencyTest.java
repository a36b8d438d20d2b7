package dev.ax.scheduler;

class H2DependencyTest extends DependencyContractTest {
    @Override
    boolean postgres() {
        return false;
    }
}
