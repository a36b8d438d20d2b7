package dev.ax.bench;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;

/**
 * A database server AX's side of a workload runs on: PostgreSQL ({@link Pg}, where the anchors run too) or MariaDB
 * ({@link MariaDb}). What a workload measures around AX, it reads through this: fresh databases, the server's counters
 * and CPU, table sizes, and the few SQL expressions whose spelling differs.
 */
abstract sealed class BenchDb permits Pg, MariaDb {
    private final String baseUrl;
    private final String user;
    private final String password;

    /** @param baseUrl e.g. {@code jdbc:postgresql://127.0.0.1:5432/} (a database name is appended) */
    BenchDb(String baseUrl, String user, String password) {
        this.baseUrl = baseUrl.endsWith("/") ? baseUrl : baseUrl + "/";
        this.user = user;
        this.password = password == null ? "" : password;
    }

    /** The server's URL without a database. */
    final String baseUrl() {
        return baseUrl;
    }

    public final String url(String database) {
        return baseUrl + database;
    }

    public final String user() {
        return user;
    }

    public final String password() {
        return password;
    }

    public final Connection connect(String database) throws SQLException {
        return DriverManager.getConnection(url(database), user, password);
    }

    /** "PostgreSQL", "MariaDB". */
    public abstract String product();

    /** The system's name in result tables: AX on PostgreSQL is "AX", as it always was. */
    public abstract String axSystem();

    /** Drops and creates {@code database}: every run starts from empty tables. */
    public abstract void recreate(String database);

    public abstract void drop(String database);

    public abstract long scalar(String database, String sql);

    /** Runs one statement and returns its row count. */
    public long update(String database, String sql) {
        try (Connection c = connect(database);
                Statement s = c.createStatement()) {
            c.setAutoCommit(true);
            return s.executeUpdate(sql);
        } catch (SQLException e) {
            throw new IllegalStateException(sql + ": " + e.getMessage(), e);
        }
    }

    /** Total size (rows and indexes) of each table whose name starts with one of the prefixes, bytes. */
    public abstract Map<String, Long> tableSizes(String database, String... prefixes);

    /** Counters whose difference between two readings says what a run cost the database. */
    public abstract Stats stats(String database);

    public abstract String version();

    /** The name of the server's processes in /proc (their CPU is the "DB CPU" of a window). */
    public abstract String processName();

    /** SQL: a timestamp column as epoch milliseconds (BIGINT). */
    public abstract String epochMillis(String column);

    /** SQL: the timestamp {@code epochSeconds} after 1970-01-01 UTC. */
    public abstract String fromEpochSeconds(long epochSeconds);

    /** SQL: the first whole second after the database's now. */
    public abstract String nextWholeSecond();

    /** SQL: the database's now, as AX's columns hold it. */
    public abstract String now();

    /** Refreshes the planner's statistics of {@code tables} after a bulk load. */
    public abstract void analyze(String database, String... tables);

    /**
     * Committed transactions, rows written, and the server's log position (PostgreSQL's WAL, InnoDB's redo log):
     * differences of two snapshots. MariaDB counts the whole server's, PostgreSQL the database's.
     */
    record Stats(long commits, long inserted, long updated, long deleted, long walBytes) {
        Stats minus(Stats before) {
            return new Stats(
                    commits - before.commits,
                    inserted - before.inserted,
                    updated - before.updated,
                    deleted - before.deleted,
                    walBytes - before.walBytes);
        }
    }
}
