package dev.ax.scheduler;

import dev.ax.store.DbConfig;
import dev.ax.store.TestDatabases;

class PostgresLeaseTest extends LeaseContractTest {
    @Override
    DbConfig config() {
        return TestDatabases.postgres();
    }
}
