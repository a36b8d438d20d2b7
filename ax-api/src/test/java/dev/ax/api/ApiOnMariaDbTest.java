package dev.ax.api;

import dev.ax.store.DbConfig;
import dev.ax.store.TestDatabases;

class ApiOnMariaDbTest extends ApiContractTest {
    @Override
    DbConfig db() {
        return TestDatabases.mariadb();
    }
}
