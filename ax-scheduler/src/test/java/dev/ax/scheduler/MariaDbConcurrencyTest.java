package dev.ax.scheduler;

import dev.ax.store.DbConfig;
import dev.ax.store.TestDatabases;

class MariaDbConcurrencyTest extends ConcurrencyClusterTest {
    @Override
    DbConfig config() {
        return TestDatabases.mariadb();
    }
}
