package dev.ax.scheduler;

import dev.ax.store.DbConfig;
import dev.ax.store.TestDatabases;

class PostgresSecretsTest extends SecretsContractTest {
    @Override
    DbConfig config() {
        return TestDatabases.postgres();
    }
}
