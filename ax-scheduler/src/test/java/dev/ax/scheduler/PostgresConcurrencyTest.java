package dev.ax.scheduler;

import dev.ax.store.DbConfig;
import dev.ax.store.TestDatabases;

class PostgresConcurrencyTest extends ConcurrencyClusterTest {
    @Override
    DbConfig config() {
        return TestDatabases.postgres();
    }
}
