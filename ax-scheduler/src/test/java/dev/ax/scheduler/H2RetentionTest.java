package dev.ax.scheduler;

class H2RetentionTest extends RetentionContractTest {
    @Override
    boolean postgres() {
        return false;
    }
}
