package dev.ax.scheduler;

class H2FiringTest extends FiringContractTest {
    @Override
    boolean postgres() {
        return false;
    }
}
