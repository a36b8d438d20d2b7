package dev.ax.scheduler;

import dev.ax.store.DbConfig;
import dev.ax.store.TestDatabases;

class PostgresShardClusterTest extends ShardClusterTest {
    @Override
    DbConfig config() {
        return TestDatabases.postgres();
    }
}
