package dev.ax.scheduler;

import dev.ax.store.DbConfig;
import dev.ax.store.TestDatabases;

class MariaDbGroupedReportTest extends GroupedReportContractTest {
    @Override
    DbConfig config() {
        return TestDatabases.mariadb();
    }
}
