package dev.ax.api;

import dev.ax.store.DbConfig;
import dev.ax.store.TestDatabases;

class TriggerKeyApiOnH2Test extends TriggerKeyApiTest {
    @Override
    DbConfig db() {
        return TestDatabases.h2();
    }
}
