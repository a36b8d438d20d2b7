package dev.ax.api;

import dev.ax.store.DbConfig;
import dev.ax.store.TestDatabases;

class ApiOnH2Test extends ApiContractTest {
    @Override
    DbConfig db() {
        return TestDatabases.h2();
    }
}
