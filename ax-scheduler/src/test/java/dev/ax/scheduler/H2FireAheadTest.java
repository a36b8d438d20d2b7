package dev.ax.scheduler;

class H2FireAheadTest extends FireAheadContractTest {
    @Override
    boolean postgres() {
        return false;
    }
}
