package dev.ax.scheduler;

import dev.ax.store.DbConfig;
import dev.ax.store.TestDatabases;

class PostgresRunServiceTest extends RunServiceContractTest {
    @Override
    DbConfig config() {
        return TestDatabases.postgres();
    }
}
