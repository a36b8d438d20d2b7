package dev.ax.scheduler;

class PostgresApprovalTest extends ApprovalContractTest {
    @Override
    boolean postgres() {
        return true;
    }
}
