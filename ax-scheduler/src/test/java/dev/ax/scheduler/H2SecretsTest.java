package dev.ax.scheduler;

class H2SecretsTest extends SecretsContractTest {
    @Override
    boolean postgres() {
        return false;
    }
}
