package dev.ax.store;

class PostgresAccessStoreTest extends AccessStoreContractTest {
    @Override
    DbConfig config() {
        return TestDatabases.postgres();
    }
}
