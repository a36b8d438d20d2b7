package dev.ax.store;

@OnMariaDb
class MariaDbTriggerKeyStoreTest extends ClusterTriggerKeyStoreContractTest {
    @Override
    DbConfig config() {
        return TestDatabases.mariadb();
    }

    @Override
    boolean aClaimWaitsForALock() {
        return store.tx(tx -> tx.queryOne(
                                "SELECT COUNT(*) AS n FROM information_schema.INNODB_TRX t JOIN information_schema.PROCESSLIST p"
                                        + " ON p.ID = t.trx_mysql_thread_id WHERE p.DB = DATABASE() AND t.trx_state = 'LOCK WAIT'"
                                        + " AND t.trx_query LIKE 'INSERT INTO ax_trigger_key%'",
                                r -> r.lng("n"))
                        .orElse(0L))
                > 0;
    }
}
