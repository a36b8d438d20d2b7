package dev.ax.scheduler;

import dev.ax.store.DbConfig;
import dev.ax.store.TestDatabases;

class PostgresDependencyClusterTest extends DependencyClusterTest {
    @Override
    DbConfig config() {
        return TestDatabases.postgres();
    }
}
