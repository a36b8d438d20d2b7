package dev.ax.console;

import dev.ax.store.DbConfig;
import dev.ax.store.TestDatabases;

class H2QueriesTest extends QueriesContractTest {
    @Override
    DbConfig config() {
        return TestDatabases.h2();
    }
}
