package dev.ax.store;

class H2AccessStoreTest extends AccessStoreContractTest {
    @Override
    DbConfig config() {
        return TestDatabases.h2();
    }
}
