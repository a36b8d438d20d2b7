package dev.ax.scheduler;

class H2TriggerKeyTest extends TriggerKeyContractTest {
    @Override
    boolean postgres() {
        return false;
    }
}
