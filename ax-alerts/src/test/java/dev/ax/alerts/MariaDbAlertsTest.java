package dev.ax.alerts;

import dev.ax.store.DbConfig;
import dev.ax.store.TestDatabases;

class MariaDbAlertsTest extends AlertsContractTest {
    @Override
    DbConfig db() {
        return TestDatabases.mariadb();
    }
}
