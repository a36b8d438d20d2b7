package dev.ax.store;

class MariaDbStoreTest extends ClusterStoreContractTest {
    @Override
    DbConfig config() {
        return TestDatabases.mariadb();
    }

    @Override
    void waitForLocksAtMostFiveSeconds(Tx tx) {
        // For the rest of the connection's session, not the transaction's: pooled connections serve tests only.
        tx.update("SET SESSION innodb_lock_wait_timeout = 5");
    }
}
