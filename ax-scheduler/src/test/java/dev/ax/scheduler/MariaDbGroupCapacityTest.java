package dev.ax.scheduler;

import dev.ax.store.DbConfig;
import dev.ax.store.OnMariaDb;
import dev.ax.store.TestDatabases;

@OnMariaDb
class MariaDbGroupCapacityTest extends GroupCapacityClusterTest {
    @Override
    DbConfig config() {
        return TestDatabases.mariadb();
    }
}
