package dev.ax.store;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

@OnMariaDb
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

    @Test
    void an_online_backup_through_ax_is_refused_with_the_tool_that_makes_one() {
        assertThatThrownBy(() -> store.db().backupTo(Path.of("backup.zip")))
                .isInstanceOf(UnsupportedOperationException.class)
                .hasMessageContaining("mariadb-dump");
    }
}
