package dev.ax.scheduler;

import dev.ax.store.DbConfig;
import dev.ax.store.TestDatabases;

class PostgresEnvironmentTest extends EnvironmentContractTest {
    @Override
    DbConfig config() {
        return TestDatabases.postgres();
    }
}
