package dev.ax.server;

import dev.ax.store.DbConfig;
import dev.ax.store.OnMariaDb;
import dev.ax.store.TestDatabases;

@OnMariaDb
class MariaDbSecretsEndToEndTest extends SecretsEndToEndTest {
    @Override
    DbConfig freshDatabase() {
        return TestDatabases.mariadb();
    }
}
