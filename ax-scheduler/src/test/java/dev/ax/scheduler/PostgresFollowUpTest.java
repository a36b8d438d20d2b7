package dev.ax.scheduler;

class PostgresFollowUpTest extends FollowUpContractTest {
    @Override
    boolean postgres() {
        return true;
    }
}
