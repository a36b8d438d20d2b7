package dev.ax.scheduler;

import dev.ax.store.DbConfig;
import dev.ax.store.OnMariaDb;
import dev.ax.store.TestDatabases;

@OnMariaDb
class MariaDbTestRunTest extends TestRunContractTest {
    @Override
    DbConfig config() {
        return TestDatabases.mariadb();
    }
}
