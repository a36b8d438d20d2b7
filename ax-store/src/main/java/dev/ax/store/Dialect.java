package dev.ax.store;

import java.sql.SQLException;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Everything that differs between the databases AX runs on, in one place. The SQL of the
 * stores is written once; it asks the dialect for the few fragments that differ.
 *
 * <p>H2 is the embedded single-node default. It is not a stand-in for PostgreSQL's claim path:
 * with an index on the filtered column its {@code FOR UPDATE SKIP LOCKED} locks every matching
 * row, so concurrent claimers would take turns anyway. On H2 AX therefore serialises firing and
 * claiming in the JVM ({@link #claimLock()}), and the cluster tests run on PostgreSQL.
 */
public enum Dialect {
    POSTGRES("postgresql") {
        @Override
        public String plusMillis(String timestampExpr) {
            return "(" + timestampExpr + " + ? * INTERVAL '1 millisecond')";
        }

        @Override
        public String onSlotConflictDoNothing() {
            return " ON CONFLICT (task_id, fire_key) DO NOTHING";
        }

        @Override
        public boolean supportsSkipLocked() {
            return true;
        }

        @Override
        public boolean writesInWith() {
            return true;
        }

        @Override
        public boolean upsertsOnConflict() {
            return true;
        }
    },
    H2("h2") {
        @Override
        public String plusMillis(String timestampExpr) {
            return "DATEADD(MILLISECOND, ?, " + timestampExpr + ")";
        }

        @Override
        public String onSlotConflictDoNothing() {
            // H2 has no ON CONFLICT (cols): the duplicate insert fails with 23505 and, unlike on
            // PostgreSQL, the transaction goes on; RunStore treats that as "slot taken".
            return "";
        }

        @Override
        public boolean supportsSkipLocked() {
            return false;
        }

        @Override
        public boolean writesInWith() {
            return false;
        }

        @Override
        public boolean upsertsOnConflict() {
            return false;
        }
    };

    private final String migrationFolder;
    private final ReentrantLock claimLock = new ReentrantLock();

    Dialect(String migrationFolder) {
        this.migrationFolder = migrationFolder;
    }

    public static Dialect forUrl(String jdbcUrl) {
        if (jdbcUrl.startsWith("jdbc:postgresql:")) {
            return POSTGRES;
        }
        if (jdbcUrl.startsWith("jdbc:h2:")) {
            return H2;
        }
        throw new IllegalArgumentException(
                "db-url: AX runs on PostgreSQL (jdbc:postgresql://...) or its embedded H2 file; got " + jdbcUrl);
    }

    public String migrationLocation() {
        return "classpath:db/migration/" + migrationFolder;
    }

    /** SQL for {@code timestampExpr + ? milliseconds}; the caller binds the milliseconds. */
    public abstract String plusMillis(String timestampExpr);

    /** Appended to the run insert so that a second insert for a taken slot is a no-op. */
    public abstract String onSlotConflictDoNothing();

    public abstract boolean supportsSkipLocked();

    /**
     * True if a {@code WITH} may hold an INSERT or UPDATE whose {@code RETURNING} rows the main
     * statement reads: a state change and its event, or a new run and its CREATED event, then
     * cost one round trip instead of two (PostgreSQL; H2 has no data-modifying WITH).
     */
    public abstract boolean writesInWith();

    /**
     * True if an INSERT may end in {@code ON CONFLICT (cols) DO UPDATE SET ... WHERE ...}: one statement
     * that inserts a key, or takes over its row when the condition holds, or leaves it, and that waits
     * for a concurrent transaction inserting the same key to end first (PostgreSQL). Without it (H2),
     * a store reads the row {@code FOR UPDATE} and inserts or updates it.
     */
    public abstract boolean upsertsOnConflict();

    /** {@code FOR UPDATE SKIP LOCKED}, or plain {@code FOR UPDATE} where claims are serialised in the JVM. */
    public String forUpdateSkipLocked() {
        return supportsSkipLocked() ? " FOR UPDATE SKIP LOCKED" : " FOR UPDATE";
    }

    /**
     * Held around firing and claiming on databases without a working SKIP LOCKED (embedded H2,
     * single node only). A no-op lock on PostgreSQL, where row locks do the job across nodes.
     */
    public AutoCloseable claimLock() {
        if (supportsSkipLocked()) {
            return () -> {};
        }
        claimLock.lock();
        return claimLock::unlock;
    }

    /**
     * A row lock that keeps the row from being deleted (or its key changed) but lets other
     * transactions take the same lock, and plain updates go on: {@code FOR KEY SHARE} on
     * PostgreSQL; {@code FOR UPDATE} where there is no such lock.
     */
    public String forKeyShare() {
        return this == POSTGRES ? " FOR KEY SHARE" : " FOR UPDATE";
    }

    public boolean isUniqueViolation(SQLException e) {
        return "23505".equals(e.getSQLState());
    }
}
