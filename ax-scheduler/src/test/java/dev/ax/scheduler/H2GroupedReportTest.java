package dev.ax.scheduler;

import dev.ax.store.DbConfig;
import dev.ax.store.TestDatabases;

class H2GroupedReportTest extends GroupedReportContractTest {
    @Override
    DbConfig config() {
        return TestDatabases.h2();
    }
}
