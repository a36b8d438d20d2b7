package dev.ax.store;

@OnMariaDb
class MariaDbSecretStoreTest extends SecretStoreContractTest {
    @Override
    DbConfig config() {
        return TestDatabases.mariadb();
    }
}
