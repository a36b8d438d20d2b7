package dev.ax.scheduler;

import dev.ax.store.DbConfig;
import dev.ax.store.TestDatabases;

class MariaDbDependencyClusterTest extends DependencyClusterTest {
    @Override
    DbConfig config() {
        return TestDatabases.mariadb();
    }
}
