package dev.ax.scheduler;

import dev.ax.store.DbConfig;
import dev.ax.store.TestDatabases;

class PostgresTriggerKeyTest extends TriggerKeyContractTest {
    @Override
    DbConfig config() {
        return TestDatabases.postgres();
    }
}
