package dev.ax.scheduler;

import dev.ax.store.DbConfig;
import dev.ax.store.TestDatabases;

class PostgresShardTest extends ShardContractTest {
    @Override
    DbConfig config() {
        return TestDatabases.postgres();
    }
}
