package dev.ax.sdk;

import dev.ax.store.DbConfig;
import dev.ax.store.OnMariaDb;
import dev.ax.store.TestDatabases;
import java.sql.SQLException;

@OnMariaDb
class MariaDbIdempotencyStoreTest extends IdempotencyStoreContractTest {
    @Override
    DbConfig database() {
        return TestDatabases.mariadb();
    }

    /** Only this test's two transactions use its fresh database, so any lock wait in it is the second's. */
    @Override
    boolean waitsForALock(Thread thread) throws SQLException {
        return count("SELECT COUNT(*) FROM information_schema.INNODB_TRX t JOIN information_schema.PROCESSLIST p"
                        + " ON p.ID = t.trx_mysql_thread_id WHERE p.DB = DATABASE() AND t.trx_state = 'LOCK WAIT'")
                > 0;
    }
}
