package dev.ax.scheduler;

import dev.ax.store.DbConfig;
import dev.ax.store.TestDatabases;

class PostgresDependencyTest extends DependencyContractTest {
    @Override
    DbConfig config() {
        return TestDatabases.postgres();
    }
}
