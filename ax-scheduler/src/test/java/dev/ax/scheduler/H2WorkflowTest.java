package dev.ax.scheduler;

class H2WorkflowTest extends WorkflowContractTest {
    @Override
    boolean postgres() {
        return false;
    }
}
