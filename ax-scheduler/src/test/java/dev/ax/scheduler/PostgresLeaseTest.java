package dev.ax.scheduler;

class PostgresLeaseTest extends LeaseContractTest {
    @Override
    boolean postgres() {
        return true;
    }
}
