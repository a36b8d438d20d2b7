package dev.ax.api;

import dev.ax.store.DbConfig;
import dev.ax.store.TestDatabases;

class RunControlOnH2Test extends RunControlApiTest {
    @Override
    DbConfig db() {
        return TestDatabases.h2();
    }
}
