package dev.ax.scheduler;

import dev.ax.store.DbConfig;
import dev.ax.store.TestDatabases;

class MariaDbDependencyTest extends DependencyContractTest {
    @Override
    DbConfig config() {
        return TestDatabases.mariadb();
    }
}
