package dev.ax.scheduler;

import dev.ax.store.DbConfig;
import dev.ax.store.TestDatabases;

class MariaDbWorkflowClusterTest extends WorkflowClusterTest {
    @Override
    DbConfig config() {
        return TestDatabases.mariadb();
    }
}
