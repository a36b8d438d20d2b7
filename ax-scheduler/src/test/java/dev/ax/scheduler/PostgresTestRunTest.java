package dev.ax.scheduler;

import dev.ax.store.DbConfig;
import dev.ax.store.TestDatabases;

class PostgresTestRunTest extends TestRunContractTest {
    @Override
    DbConfig config() {
        return TestDatabases.postgres();
    }
}
