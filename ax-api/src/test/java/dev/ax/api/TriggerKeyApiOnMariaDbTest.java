package dev.ax.api;

import dev.ax.store.DbConfig;
import dev.ax.store.TestDatabases;

class TriggerKeyApiOnMariaDbTest extends TriggerKeyApiTest {
    @Override
    DbConfig db() {
        return TestDatabases.mariadb();
    }
}
