package dev.ax.api;

import dev.ax.store.DbConfig;
import dev.ax.store.OnMariaDb;
import dev.ax.store.TestDatabases;

@OnMariaDb
class MariaDbTriggerKeyClusterTest extends TriggerKeyClusterTest {
    @Override
    DbConfig db() {
        return TestDatabases.mariadb();
    }
}
