package dev.ax.scheduler;

import dev.ax.store.DbConfig;
import dev.ax.store.TestDatabases;

class H2FireAheadTest extends FireAheadContractTest {
    @Override
    DbConfig config() {
        return TestDatabases.h2();
    }
}
