package dev.ax.sdk;

import dev.ax.store.DbConfig;
import dev.ax.store.TestDatabases;
import java.sql.SQLException;

class PostgresIdempotencyStoreTest extends IdempotencyStoreContractTest {
    @Override
    DbConfig database() {
        return TestDatabases.postgres();
    }

    /** Only this test's two transactions use its fresh database, so any lock wait in it is the second's. */
    @Override
    boolean waitsForALock(Thread thread) throws SQLException {
        return count(
                        "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'")
                > 0;
    }
}
