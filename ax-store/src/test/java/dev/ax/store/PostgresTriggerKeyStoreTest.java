package dev.ax.store;

class PostgresTriggerKeyStoreTest extends ClusterTriggerKeyStoreContractTest {
    @Override
    DbConfig config() {
        return TestDatabases.postgres();
    }

    @Override
    boolean aClaimWaitsForALock() {
        return store.tx(tx -> tx.queryOne(
                                "SELECT COUNT(*) AS n FROM pg_stat_activity WHERE datname = current_database()"
                                        + " AND wait_event_type = 'Lock' AND query LIKE 'INSERT INTO ax_trigger_key%'",
                                r -> r.lng("n"))
                        .orElse(0L))
                > 0;
    }
}
