package dev.ax.store.read;

import dev.ax.store.DbConfig;
import dev.ax.store.TestDatabases;

class H2ConsoleReadsTest extends ConsoleReadsContractTest {
    @Override
    DbConfig config() {
        return TestDatabases.h2();
    }
}
