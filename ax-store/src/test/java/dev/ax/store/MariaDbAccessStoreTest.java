package dev.ax.store;

@OnMariaDb
class MariaDbAccessStoreTest extends AccessStoreContractTest {
    @Override
    DbConfig config() {
        return TestDatabases.mariadb();
    }
}
