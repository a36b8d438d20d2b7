package dev.ax.scheduler;

import dev.ax.store.DbConfig;
import dev.ax.store.TestDatabases;

class PostgresWorkflowTest extends WorkflowContractTest {
    @Override
    DbConfig config() {
        return TestDatabases.postgres();
    }
}
