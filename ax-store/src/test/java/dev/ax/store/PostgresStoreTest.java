package dev.ax.store;

class PostgresStoreTest extends StoreContractTest {
    @Override
    DbConfig config() {
        return TestDatabases.postgres();
    }
}
