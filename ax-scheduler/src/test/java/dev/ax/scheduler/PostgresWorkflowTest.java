package dev.ax.scheduler;

class PostgresWorkflowTest extends WorkflowContractTest {
    @Override
    boolean postgres() {
        return true;
    }
}
