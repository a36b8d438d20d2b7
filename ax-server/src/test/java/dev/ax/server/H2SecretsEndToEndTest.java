package dev.ax.server;

import dev.ax.store.DbConfig;
import dev.ax.store.TestDatabases;

class H2SecretsEndToEndTest extends SecretsEndToEndTest {
    @Override
    DbConfig freshDatabase() {
        return TestDatabases.h2();
    }
}
