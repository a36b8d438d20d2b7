package dev.ax.server;

import dev.ax.store.DbConfig;
import dev.ax.store.TestDatabases;

class MariaDbSecretsEndToEndTest extends SecretsEndToEndTest {
    @Override
    DbConfig freshDatabase() {
        return TestDatabases.mariadb();
    }
}
