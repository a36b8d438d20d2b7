package dev.ax.scheduler;

import dev.ax.store.DbConfig;
import dev.ax.store.TestDatabases;

class H2ShardTest extends ShardContractTest {
    @Override
    DbConfig config() {
        return TestDatabases.h2();
    }
}
