package dev.ax.scheduler;

import dev.ax.store.DbConfig;
import dev.ax.store.TestDatabases;

class MariaDbFiringTest extends FiringContractTest {
    @Override
    DbConfig config() {
        return TestDatabases.mariadb();
    }
}
