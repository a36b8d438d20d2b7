package dev.ax.scheduler;

class PostgresDependencyTest extends DependencyContractTest {
    @Override
    boolean postgres() {
        return true;
    }
}
