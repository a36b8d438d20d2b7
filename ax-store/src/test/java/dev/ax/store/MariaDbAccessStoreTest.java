package dev.ax.store;

class MariaDbAccessStoreTest extends AccessStoreContractTest {
    @Override
    DbConfig config() {
        return TestDatabases.mariadb();
    }
}
