package dev.ax.scheduler;

import dev.ax.store.DbConfig;
import dev.ax.store.TestDatabases;

class PostgresCanaryTest extends CanaryContractTest {
    @Override
    DbConfig config() {
        return TestDatabases.postgres();
    }
}
