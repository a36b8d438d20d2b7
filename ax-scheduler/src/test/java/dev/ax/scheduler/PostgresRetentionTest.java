package dev.ax.scheduler;

import dev.ax.store.DbConfig;
import dev.ax.store.TestDatabases;

class PostgresRetentionTest extends RetentionContractTest {
    @Override
    DbConfig config() {
        return TestDatabases.postgres();
    }
}
