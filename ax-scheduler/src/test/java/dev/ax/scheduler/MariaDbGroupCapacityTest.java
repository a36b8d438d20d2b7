package dev.ax.scheduler;

import dev.ax.store.DbConfig;
import dev.ax.store.TestDatabases;

class MariaDbGroupCapacityTest extends GroupCapacityClusterTest {
    @Override
    DbConfig config() {
        return TestDatabases.mariadb();
    }
}
