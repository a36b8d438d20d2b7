package dev.ax.api;

import dev.ax.store.DbConfig;
import dev.ax.store.TestDatabases;

class PostgresTriggerKeyClusterTest extends TriggerKeyClusterTest {
    @Override
    DbConfig db() {
        return TestDatabases.postgres();
    }
}
