package dev.ax.store;

class H2StoreTest extends StoreContractTest {
    @Override
    DbConfig config() {
        return TestDatabases.h2();
    }
}
