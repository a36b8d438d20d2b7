package dev.ax.scheduler;

import dev.ax.store.DbConfig;
import dev.ax.store.TestDatabases;

class MariaDbApprovalTest extends ApprovalContractTest {
    @Override
    DbConfig config() {
        return TestDatabases.mariadb();
    }
}
