package dev.ax.scheduler;

import dev.ax.store.DbConfig;
import dev.ax.store.TestDatabases;

class MariaDbShardTest extends ShardContractTest {
    @Override
    DbConfig config() {
        return TestDatabases.mariadb();
    }
}
