package dev.ax.scheduler;

class PostgresTriggerKeyTest extends TriggerKeyContractTest {
    @Override
    boolean postgres() {
        return true;
    }
}
