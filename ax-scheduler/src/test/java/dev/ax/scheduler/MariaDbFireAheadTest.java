package dev.ax.scheduler;

import dev.ax.store.DbConfig;
import dev.ax.store.TestDatabases;

class MariaDbFireAheadTest extends FireAheadContractTest {
    @Override
    DbConfig config() {
        return TestDatabases.mariadb();
    }
}
