package dev.ax.scheduler;

import dev.ax.store.DbConfig;
import dev.ax.store.TestDatabases;

class PostgresClusterTest extends FiringClusterTest {
    @Override
    DbConfig config() {
        return TestDatabases.postgres();
    }
}
