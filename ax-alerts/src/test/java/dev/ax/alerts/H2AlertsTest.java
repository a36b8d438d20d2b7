package dev.ax.alerts;

import dev.ax.store.DbConfig;
import dev.ax.store.TestDatabases;

class H2AlertsTest extends AlertsContractTest {
    @Override
    DbConfig db() {
        return TestDatabases.h2();
    }
}
