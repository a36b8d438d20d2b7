package dev.ax.scheduler;

import dev.ax.store.DbConfig;
import dev.ax.store.TestDatabases;

class PostgresApprovalTest extends ApprovalContractTest {
    @Override
    DbConfig config() {
        return TestDatabases.postgres();
    }
}
