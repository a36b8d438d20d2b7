package dev.ax.scheduler;

import dev.ax.store.DbConfig;
import dev.ax.store.TestDatabases;

class H2CanaryTest extends CanaryContractTest {
    @Override
    DbConfig config() {
        return TestDatabases.h2();
    }
}
