package dev.ax.scheduler;

import dev.ax.store.DbConfig;
import dev.ax.store.TestDatabases;

class MariaDbLeaseTest extends LeaseContractTest {
    @Override
    DbConfig config() {
        return TestDatabases.mariadb();
    }
}
