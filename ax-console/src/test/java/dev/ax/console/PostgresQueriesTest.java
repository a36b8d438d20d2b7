package dev.ax.console;

import dev.ax.store.DbConfig;
import dev.ax.store.TestDatabases;

class PostgresQueriesTest extends QueriesContractTest {
    @Override
    DbConfig config() {
        return TestDatabases.postgres();
    }
}
