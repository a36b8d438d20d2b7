package dev.ax.scheduler;

class PostgresFiringTest extends FiringContractTest {
    @Override
    boolean postgres() {
        return true;
    }
}
