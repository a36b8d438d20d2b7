package dev.ax.scheduler;

import dev.ax.store.DbConfig;
import dev.ax.store.TestDatabases;

class MariaDbSecretsTest extends SecretsContractTest {
    @Override
    DbConfig config() {
        return TestDatabases.mariadb();
    }
}
