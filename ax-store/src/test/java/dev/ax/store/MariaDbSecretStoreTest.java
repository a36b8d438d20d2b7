package dev.ax.store;

class MariaDbSecretStoreTest extends SecretStoreContractTest {
    @Override
    DbConfig config() {
        return TestDatabases.mariadb();
    }
}
