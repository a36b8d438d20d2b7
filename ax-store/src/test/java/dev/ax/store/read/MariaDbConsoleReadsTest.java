package dev.ax.store.read;

import dev.ax.store.DbConfig;
import dev.ax.store.OnMariaDb;
import dev.ax.store.TestDatabases;

@OnMariaDb
class MariaDbConsoleReadsTest extends ConsoleReadsContractTest {
    @Override
    DbConfig config() {
        return TestDatabases.mariadb();
    }
}
