package dev.ax.scheduler;

import dev.ax.store.DbConfig;
import dev.ax.store.TestDatabases;

class PostgresGroupCapacityTest extends GroupCapacityClusterTest {
    @Override
    DbConfig config() {
        return TestDatabases.postgres();
    }
}
