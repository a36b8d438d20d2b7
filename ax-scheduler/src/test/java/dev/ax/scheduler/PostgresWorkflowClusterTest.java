package dev.ax.scheduler;

import dev.ax.store.DbConfig;
import dev.ax.store.TestDatabases;

class PostgresWorkflowClusterTest extends WorkflowClusterTest {
    @Override
    DbConfig config() {
        return TestDatabases.postgres();
    }
}
