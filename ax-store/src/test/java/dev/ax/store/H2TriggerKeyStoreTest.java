package dev.ax.store;

class H2TriggerKeyStoreTest extends TriggerKeyStoreContractTest {
    @Override
    DbConfig config() {
        return TestDatabases.h2();
    }
}
