package dev.ax.store;

import java.sql.SQLException;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Everything that differs between the databases AX runs on, in one place. The SQL of the
 * stores is written once; it asks the dialect for the few fragments that differ.
 *
 * <p>H2 is the embedded single-node default. It is not a stand-in for PostgreSQL's claim path:
 * with an index on the filtered column its {@code FOR UPDATE SKIP LOCKED} locks every matching
 * row, so concurrent claimers would take turns anyway. On H2 AX therefore serialises firing and
 * claiming in the JVM ({@link #claimLock()}), and the cluster tests run on PostgreSQL and MariaDB.
 *
 * <p>MariaDB (10.6+) and MySQL (8.0+) are one dialect: the SQL AX needs is in both. Their sessions
 * speak standard SQL where AX's statements rely on it ({@link #sessionSetup()}: {@code "..."} quotes
 * an identifier, {@code ||} joins strings); their times are {@code DATETIME(6)} columns holding UTC,
 * written and read without a zone ({@link Tx}), so the session's time zone never matters.
 */
public enum Dialect {
    POSTGRES("postgresql") {
        @Override
        public String plusMillis(String timestampExpr) {
            return "(" + timestampExpr + " + ? * INTERVAL '1 millisecond')";
        }

        @Override
        public String onConflictDoNothing(String keyColumns) {
            return " ON CONFLICT (" + keyColumns + ") DO NOTHING";
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
        public Upsert upsert() {
            return Upsert.ON_CONFLICT;
        }

        @Override
        public boolean goesOnAfterFailedStatement() {
            return false;
        }

        @Override
        public String forKeyShare() {
            return " FOR KEY SHARE";
        }

        @Override
        public String rowCount(String table) {
            // -1 until the table was first analyzed (PostgreSQL 14+): nothing known yet, shown as 0. A partitioned
            // table (run output, by day) has its rows in its partitions.
            return "SELECT COALESCE(SUM(GREATEST(reltuples, 0)), 0)::bigint AS n FROM pg_class WHERE oid = to_regclass('"
                    + table + "') OR oid IN (SELECT inhrelid FROM pg_inherits WHERE inhparent = to_regclass('" + table
                    + "'))";
        }
    },
    H2("h2") {
        @Override
        public String plusMillis(String timestampExpr) {
            return "DATEADD(MILLISECOND, ?, " + timestampExpr + ")";
        }

        @Override
        public String onConflictDoNothing(String keyColumns) {
            // H2 has no ON CONFLICT (cols): the duplicate insert fails with 23505 and, unlike on
            // PostgreSQL, the transaction goes on; the store treats that as "key taken".
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
        public Upsert upsert() {
            return Upsert.NONE;
        }

        @Override
        public boolean goesOnAfterFailedStatement() {
            return true;
        }
    },
    MARIADB("mariadb") {
        @Override
        public String sql(String statement) {
            // CURRENT_TIMESTAMP here would be whole seconds in the session's zone; the columns hold UTC to the
            // microsecond.
            return utcNow(statement);
        }

        @Override
        public String plusMillis(String timestampExpr) {
            return "TIMESTAMPADD(MICROSECOND, ? * 1000, " + timestampExpr + ")";
        }

        @Override
        public String onConflictDoNothing(String keyColumns) {
            // A duplicate key fails the statement alone (InnoDB rolls back that statement, not the
            // transaction), after waiting for a transaction that inserted the same key to end: as on H2,
            // the store treats the failure as "key taken". INSERT IGNORE would also turn other errors
            // (a value too long) into warnings.
            return "";
        }

        @Override
        public boolean supportsSkipLocked() {
            return true;
        }

        @Override
        public boolean writesInWith() {
            return false;
        }

        @Override
        public Upsert upsert() {
            return Upsert.ON_DUPLICATE_KEY;
        }

        @Override
        public boolean goesOnAfterFailedStatement() {
            return true;
        }

        @Override
        public String forKeyShare() {
            // A shared lock: other sharers go on, deletes and edits of the row wait. Unlike FOR KEY SHARE,
            // plain updates of the row (the firing loop advancing next_fire_at) wait too.
            return " LOCK IN SHARE MODE";
        }

        @Override
        public String castTimestamp(String expr) {
            return "CAST(" + expr + " AS DATETIME(6))";
        }

        @Override
        public String castVarchar(String expr) {
            return "CAST(" + expr + " AS CHAR)";
        }

        @Override
        public String secondsBetween(String from, String to) {
            return "(TIMESTAMPDIFF(MICROSECOND, " + from + ", " + to + ") / 1000000)";
        }

        @Override
        public String epochSeconds(String timestampExpr) {
            // UNIX_TIMESTAMP would read the DATETIME in the session's time zone; the column holds UTC.
            return secondsBetween("TIMESTAMP '1970-01-01 00:00:00'", timestampExpr);
        }

        @Override
        public boolean isUniqueViolation(SQLException e) {
            return e.getErrorCode() == ER_DUP_ENTRY;
        }

        @Override
        public String rowCount(String table) {
            // InnoDB's estimate, kept by its persistent statistics: counting a table of millions of runs reads all of
            // them.
            return "SELECT COALESCE(MAX(TABLE_ROWS), 0) AS n FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE()"
                    + " AND TABLE_NAME = '" + table + "'";
        }

        @Override
        public String sessionSetup() {
            return "SET SESSION sql_mode = '" + SQL_MODE + "'";
        }

        @Override
        public Map<String, String> driverProperties() {
            // Statements prepared on the server: it parses the hot ones once per connection, not at every run; each
            // connection keeps its 100 most recent, well inside the server's max_prepared_stmt_count (16,382) for a
            // dozen nodes. A batch is sent at once either way; the bulk protocol the driver would use for a batch of
            // INSERTs refuses INSERT ... SELECT, which events of runs are.
            return Map.of("useServerPrepStmts", "true", "prepStmtCacheSize", "100", "useBulkStmtsForInserts", "false");
        }

        @Override
        public String driverUrl(String jdbcUrl) {
            // MariaDB Connector/J serves jdbc:mysql:// URLs too, when told to (MySQL's own driver is not shipped).
            if (jdbcUrl.startsWith(MYSQL_PREFIX) && !jdbcUrl.contains("permitMysqlScheme")) {
                return jdbcUrl + (jdbcUrl.contains("?") ? "&" : "?") + "permitMysqlScheme";
            }
            return jdbcUrl;
        }
    };

    static final String MARIADB_PREFIX = "jdbc:mariadb:";
    static final String MYSQL_PREFIX = "jdbc:mysql:";

    /** MariaDB's and MySQL's "duplicate entry for key" (SQLState 23000 covers every integrity constraint). */
    private static final int ER_DUP_ENTRY = 1062;

    private static final String CURRENT_TIMESTAMP = "CURRENT_TIMESTAMP";

    /**
     * {@code statement} with each {@code CURRENT_TIMESTAMP} that is a word of its own and not a call replaced by
     * {@code UTC_TIMESTAMP(6)}. A scan, not a regular expression: a firing batch's INSERT holds a thousand of them in
     * 40 KB of text, and the expression's word-boundary test at every position was a twentieth of the node's CPU.
     */
    static String utcNow(String statement) {
        int at = statement.indexOf(CURRENT_TIMESTAMP);
        if (at < 0) {
            return statement;
        }
        StringBuilder out = new StringBuilder(statement.length() + 64);
        int from = 0;
        while (at >= 0) {
            int end = at + CURRENT_TIMESTAMP.length();
            if ((at == 0 || !wordChar(statement.charAt(at - 1)))
                    && (end == statement.length() || !wordChar(statement.charAt(end)))
                    && !callFollows(statement, end)) {
                out.append(statement, from, at).append("UTC_TIMESTAMP(6)");
                from = end;
            }
            at = statement.indexOf(CURRENT_TIMESTAMP, end);
        }
        return out.append(statement, from, statement.length()).toString();
    }

    private static boolean wordChar(char c) {
        return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    }

    /** Whether {@code (} follows at {@code from}, after any white space: {@code CURRENT_TIMESTAMP(6)} is left alone. */
    private static boolean callFollows(String s, int from) {
        int i = from;
        while (i < s.length() && Character.isWhitespace(s.charAt(i))) {
            i++;
        }
        return i < s.length() && s.charAt(i) == '(';
    }

    /**
     * MariaDB's and MySQL's session mode, whatever the server's default: strict (a value too long is an
     * error, not truncated), and the standard's {@code "identifier"} and {@code a || b}. A backslash stays
     * an escape in string literals (their default): AX writes none, and it keeps {@code \} LIKE's escape
     * character, as on PostgreSQL and H2 (the task and audit searches escape {@code %} and {@code _} so).
     */
    static final String SQL_MODE =
            "STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION,ANSI_QUOTES,PIPES_AS_CONCAT";

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
        if (jdbcUrl.startsWith(MARIADB_PREFIX) || jdbcUrl.startsWith(MYSQL_PREFIX)) {
            return MARIADB;
        }
        throw new IllegalArgumentException("db-url: AX runs on PostgreSQL (jdbc:postgresql://...), MariaDB or MySQL"
                + " (jdbc:mariadb://..., jdbc:mysql://...) or its embedded H2 file; got " + jdbcUrl);
    }

    public String migrationLocation() {
        return "classpath:db/migration/" + migrationFolder;
    }

    /** The statement as this database takes it: the SQL the stores write, with what it reads otherwise put right. */
    public String sql(String statement) {
        return statement;
    }

    /** The URL to give the JDBC driver for {@code jdbcUrl}, a URL {@link #forUrl} took. */
    public String driverUrl(String jdbcUrl) {
        return jdbcUrl;
    }

    /** Properties for the JDBC driver besides the URL's. */
    public Map<String, String> driverProperties() {
        return Map.of();
    }

    /** Run on every new connection before it is used (null: nothing to set). */
    public String sessionSetup() {
        return null;
    }

    /** SQL for {@code timestampExpr + ? milliseconds}; the caller binds the milliseconds. */
    public abstract String plusMillis(String timestampExpr);

    /**
     * Appended to an INSERT so that a row whose unique key ({@code keyColumns}, as in the index) is
     * taken already is not written and the statement succeeds; empty where the database has no such
     * clause, and the store goes through {@link Tx#insertUnlessDuplicate} instead.
     */
    public abstract String onConflictDoNothing(String keyColumns);

    /** Appended to the run insert so that a second insert for a taken slot is a no-op. */
    public String onSlotConflictDoNothing() {
        return onConflictDoNothing("task_id, fire_key");
    }

    public abstract boolean supportsSkipLocked();

    /**
     * True if a {@code WITH} may hold an INSERT or UPDATE whose {@code RETURNING} rows the main
     * statement reads: a state change and its event, or a new run and its CREATED event, then
     * cost one round trip instead of two (PostgreSQL; H2 and MariaDB have no data-modifying WITH).
     */
    public abstract boolean writesInWith();

    /**
     * How an INSERT may, in the same statement, update the row whose key is taken instead: waiting for
     * a concurrent transaction inserting the same key to end first, and locking the row it leaves.
     */
    public enum Upsert {
        /** {@code ON CONFLICT (cols) DO UPDATE SET ... WHERE ...} (PostgreSQL). */
        ON_CONFLICT,
        /** {@code ON DUPLICATE KEY UPDATE ...}, without a condition of its own: {@code IF} per column (MariaDB, MySQL). */
        ON_DUPLICATE_KEY,
        /** None (H2): a store reads the row {@code FOR UPDATE}, then inserts or updates it. */
        NONE
    }

    public abstract Upsert upsert();

    /**
     * True if a statement that failed (a duplicate key) leaves the transaction usable, so that the
     * store can go on: H2 and MariaDB undo the statement alone; PostgreSQL aborts the transaction.
     */
    public abstract boolean goesOnAfterFailedStatement();

    /**
     * True if a subquery of {@code IN (...)} may end in {@code LIMIT}, and a DELETE or UPDATE may read its
     * own table there: PostgreSQL and H2; MariaDB and MySQL take neither, so a store reads the rows first.
     */
    public boolean limitsInSubqueries() {
        return this != MARIADB;
    }

    /** {@code FOR UPDATE SKIP LOCKED}, or plain {@code FOR UPDATE} where claims are serialised in the JVM. */
    public String forUpdateSkipLocked() {
        return supportsSkipLocked() ? " FOR UPDATE SKIP LOCKED" : " FOR UPDATE";
    }

    /**
     * Held around firing and claiming on databases without a working SKIP LOCKED (embedded H2,
     * single node only). A no-op on PostgreSQL and MariaDB, where row locks do the job across nodes.
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
        return " FOR UPDATE";
    }

    /** {@code expr}, a bound {@link java.time.Instant}, as a timestamp the database compares with its columns. */
    public String castTimestamp(String expr) {
        return "CAST(" + expr + " AS TIMESTAMP WITH TIME ZONE)";
    }

    /** {@code expr} as a string, where the database cannot tell a bound parameter's type from its use. */
    public String castVarchar(String expr) {
        return "CAST(" + expr + " AS VARCHAR)";
    }

    /** The seconds (with fractions) from the timestamp {@code from} to {@code to}. */
    public String secondsBetween(String from, String to) {
        return "EXTRACT(EPOCH FROM (" + to + " - " + from + "))";
    }

    /** Seconds since 1970-01-01 UTC of a timestamp. */
    public String epochSeconds(String timestampExpr) {
        return "EXTRACT(EPOCH FROM " + timestampExpr + ")";
    }

    /**
     * Ends a subquery in FROM so that the planner runs it on its own instead of merging it into the
     * query around it ({@code OFFSET 0} on PostgreSQL, which H2 takes too). MariaDB and MySQL take no
     * OFFSET without a LIMIT; with the (state, id) index their plan needs no fence.
     */
    public String subqueryFence() {
        return this == MARIADB ? "" : " OFFSET 0";
    }

    /**
     * A query of one column {@code n}: how many rows {@code table} (one of AX's own, never a caller's
     * text) holds. An estimate where the database keeps one; exact on H2.
     */
    public String rowCount(String table) {
        return "SELECT COUNT(*) AS n FROM " + table;
    }

    public boolean isUniqueViolation(SQLException e) {
        return "23505".equals(e.getSQLState());
    }
}
