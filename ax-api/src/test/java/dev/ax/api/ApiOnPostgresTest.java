package dev.ax.api;

import dev.ax.store.DbConfig;
import dev.ax.store.TestDatabases;

class ApiOnPostgresTest extends ApiContractTest {
    @Override
    DbConfig db() {
        return TestDatabases.postgres();
    }
}
