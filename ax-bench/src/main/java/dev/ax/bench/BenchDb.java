package dev.ax.bench;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;

/**
 * A database server AX's side of a workload runs on: PostgreSQL ({@link Pg}, where the anchors run too) or MariaDB
 * ({@link MariaDb}). What a workload measures around AX, it reads through this: fresh databases, the server's counters
 * and CPU, table sizes, and the few SQL expressions whose spelling differs.
 */
interface BenchDb {
    /** "PostgreSQL", "MariaDB". */
    String product();

    /** The system's name in result tables: AX on PostgreSQL is "AX", as it always was. */
    String axSystem();

    String url(String database);

    String user();

    String password();

    Connection connect(String database) throws SQLException;

    /** Drops and creates {@code database}: every run starts from empty tables. */
    void recreate(String database);

    void drop(String database);

    long scalar(String database, String sql);

    /** Runs one statement and returns its row count. */
    default long update(String database, String sql) {
        try (Connection c = connect(database);
                Statement s = c.createStatement()) {
            c.setAutoCommit(true);
            return s.executeUpdate(sql);
        } catch (SQLException e) {
            throw new IllegalStateException(sql + ": " + e.getMessage(), e);
        }
    }

    /** Total size (rows and indexes) of each table whose name starts with one of the prefixes, bytes. */
    Map<String, Long> tableSizes(String database, String... prefixes);

    /** Counters whose difference between two readings says what a run cost the database. */
    Stats stats(String database);

    String version();

    /** The name of the server's processes in /proc (their CPU is the "DB CPU" of a window). */
    String processName();

    /** SQL: a timestamp column as epoch milliseconds (BIGINT). */
    String epochMillis(String column);

    /** SQL: the timestamp {@code epochSeconds} after 1970-01-01 UTC. */
    String fromEpochSeconds(long epochSeconds);

    /** SQL: the first whole second after the database's now. */
    String nextWholeSecond();

    /** SQL: the database's now, as AX's columns hold it. */
    String now();

    /** Refreshes the planner's statistics of {@code tables} after a bulk load. */
    void analyze(String database, String... tables);

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
