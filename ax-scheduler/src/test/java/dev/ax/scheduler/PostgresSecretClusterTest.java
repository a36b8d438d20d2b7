package dev.ax.scheduler;

import dev.ax.store.DbConfig;
import dev.ax.store.TestDatabases;

class PostgresSecretClusterTest extends SecretClusterTest {
    @Override
    DbConfig config() {
        return TestDatabases.postgres();
    }
}
