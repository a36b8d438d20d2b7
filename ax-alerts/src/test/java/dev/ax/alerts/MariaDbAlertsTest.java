package dev.ax.alerts;

import dev.ax.store.DbConfig;
import dev.ax.store.OnMariaDb;
import dev.ax.store.TestDatabases;

@OnMariaDb
class MariaDbAlertsTest extends AlertsContractTest {
    @Override
    DbConfig db() {
        return TestDatabases.mariadb();
    }
}
