package dev.ax.scheduler;

import dev.ax.store.DbConfig;
import dev.ax.store.TestDatabases;

class PostgresFireAheadTest extends FireAheadContractTest {
    @Override
    DbConfig config() {
        return TestDatabases.postgres();
    }
}
