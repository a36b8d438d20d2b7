package dev.ax.scheduler;

class PostgresSecretsTest extends SecretsContractTest {
    @Override
    boolean postgres() {
        return true;
    }
}
