package dev.ax.scheduler;

class H2ApprovalTest extends ApprovalContractTest {
    @Override
    boolean postgres() {
        return false;
    }
}
