package dev.ax.scheduler;

class PostgresSuccessGroupTest extends SuccessGroupContractTest {
    @Override
    boolean postgres() {
        return true;
    }
}
