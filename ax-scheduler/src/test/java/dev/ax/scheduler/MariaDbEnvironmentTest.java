package dev.ax.scheduler;

import dev.ax.store.DbConfig;
import dev.ax.store.TestDatabases;

class MariaDbEnvironmentTest extends EnvironmentContractTest {
    @Override
    DbConfig config() {
        return TestDatabases.mariadb();
    }
}
