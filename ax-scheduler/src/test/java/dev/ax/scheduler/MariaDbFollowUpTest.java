package dev.ax.scheduler;

import dev.ax.store.DbConfig;
import dev.ax.store.TestDatabases;

class MariaDbFollowUpTest extends FollowUpContractTest {
    @Override
    DbConfig config() {
        return TestDatabases.mariadb();
    }
}
