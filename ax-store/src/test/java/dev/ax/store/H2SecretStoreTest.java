package dev.ax.store;

class H2SecretStoreTest extends SecretStoreContractTest {
    @Override
    DbConfig config() {
        return TestDatabases.h2();
    }
}
