package dev.ax.store;

class PostgresSecretStoreTest extends SecretStoreContractTest {
    @Override
    DbConfig config() {
        return TestDatabases.postgres();
    }
}
