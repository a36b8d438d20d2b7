package dev.ax.scheduler;

class H2TestRunTest extends TestRunContractTest {
    @Override
    boolean postgres() {
        return false;
    }
}
