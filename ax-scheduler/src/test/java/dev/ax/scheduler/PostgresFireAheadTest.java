package dev.ax.scheduler;

class PostgresFireAheadTest extends FireAheadContractTest {
    @Override
    boolean postgres() {
        return true;
    }
}
