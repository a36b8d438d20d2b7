package dev.ax.api;

import dev.ax.store.DbConfig;
import dev.ax.store.TestDatabases;

class RunControlOnPostgresTest extends RunControlApiTest {
    @Override
    DbConfig db() {
        return TestDatabases.postgres();
    }
}
