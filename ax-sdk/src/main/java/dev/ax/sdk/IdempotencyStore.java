package dev.ax.sdk;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * Exactly once with your own database: the request id of a run is recorded in the same transaction
 * as the work it stands for, so a work that committed is never done again, whatever happened to
 * the report afterwards.
 *
 * <p>Needs the table {@value #TABLE} in the same database as the work (a migration ships in this jar:
 * {@code dev/ax/sdk/ax_idempotency-postgresql.sql}, {@code dev/ax/sdk/ax_idempotency-mariadb.sql} (MariaDB
 * and MySQL) and {@code dev/ax/sdk/ax_idempotency-h2.sql}; {@link #createTable()} runs the right one):
 * <pre>
 * CREATE TABLE ax_idempotency (
 *     request_id VARCHAR(200) PRIMARY KEY,
 *     result     TEXT,
 *     created_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP
 * );
 * </pre>
 *
 * <p>Why the insert comes first: the primary key is the lock. Two attempts with the same request id
 * that overlap (a re-delivery while a stuck attempt still runs) serialise on it: the second waits
 * until the first commits and then finds the row, or until it rolls back and then does the work.
 * Reading first and inserting later would let both see "not done" and both do the work.
 */
public final class IdempotencyStore {

    public static final String TABLE = "ax_idempotency";
    /** Longest request id the table takes. */
    public static final int MAX_REQUEST_ID_LENGTH = 200;

    private static final String INSERT = "INSERT INTO ax_idempotency (request_id) VALUES (?)";
    private static final String SET_RESULT = "UPDATE ax_idempotency SET result = ? WHERE request_id = ?";
    private static final String FIND = "SELECT result, created_at FROM ax_idempotency WHERE request_id = ?";

    private final DataSource dataSource;
    private final JdbcTransactions transactions;

    /** A store that runs plain JDBC transactions on connections from {@code dataSource}. */
    public IdempotencyStore(DataSource dataSource) {
        this(dataSource, plainJdbc(dataSource));
    }

    /** A store whose transactions come from a framework (see {@link JdbcTransactions}). */
    public IdempotencyStore(DataSource dataSource, JdbcTransactions transactions) {
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        this.transactions = Objects.requireNonNull(transactions, "transactions");
    }

    /** A recorded request: its result ({@code null} if the work returned none) and when it committed (database time). */
    public record Recorded(String requestId, String result, Timestamp createdAt) {}

    /** What {@link #once} did: ran the work now ({@code replayed == false}) or found it done before. */
    record Once(String result, boolean replayed, Timestamp recordedAt) {}

    /**
     * Runs {@code work} at most once per {@code requestId} (see the class comment). Returns the
     * work's result, or the result recorded by the attempt that did it. An exception from the work
     * rolls everything back (nothing is recorded, a later attempt will run it) and comes out unchanged.
     *
     * @throws IllegalStateException when another transaction holds the same request id and has not
     *                               committed yet (possible on databases that do not make the insert wait)
     */
    public String runOnce(String requestId, TxWork work) throws Exception {
        return once(requestId, work).result();
    }

    Once once(String requestId, TxWork work) throws Exception {
        checkRequestId(requestId);
        Objects.requireNonNull(work, "work");
        try {
            String result = transactions.inTransaction(c -> {
                claim(c, requestId);
                String r = work.run(c);
                try (PreparedStatement ps = c.prepareStatement(SET_RESULT)) {
                    ps.setString(1, r);
                    ps.setString(2, requestId);
                    ps.executeUpdate();
                }
                return r;
            });
            return new Once(result, false, null);
        } catch (AlreadyRecorded e) {
            Recorded done = find(requestId)
                    .orElseThrow(
                            () -> new IllegalStateException(
                                    "request id " + requestId
                                            + " is being processed by another transaction that has not committed yet; try again later"));
            return new Once(done.result(), true, done.createdAt());
        }
    }

    /** The record of a request id, if its work committed. */
    public Optional<Recorded> find(String requestId) throws SQLException {
        checkRequestId(requestId);
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps = c.prepareStatement(FIND)) {
            ps.setString(1, requestId);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next()
                        ? Optional.of(new Recorded(requestId, rs.getString(1), rs.getTimestamp(2)))
                        : Optional.empty();
            }
        }
    }

    /**
     * Creates {@value #TABLE} if it does not exist, with the migration for the database behind the
     * data source (PostgreSQL, MariaDB, MySQL or H2). Handy for examples and tests; in production, run the migration
     * with the rest of your schema (Flyway, Liquibase).
     *
     * @throws IllegalStateException for another database: take the SQL from the docs and adapt it
     */
    public void createTable() throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            String product = c.getMetaData().getDatabaseProductName();
            String sql = migration(product);
            try (Statement s = c.createStatement()) {
                s.execute(sql);
            }
            if (!c.getAutoCommit()) {
                c.commit();
            }
        }
    }

    /**
     * The DDL of {@value #TABLE} for a database product name as JDBC reports it
     * ({@code PostgreSQL}, {@code MariaDB}, {@code MySQL}, {@code H2}).
     */
    public static String migration(String databaseProduct) {
        String p = databaseProduct == null ? "" : databaseProduct.toLowerCase(Locale.ROOT);
        String file;
        if (p.contains("postgres")) {
            file = "ax_idempotency-postgresql.sql";
        } else if (p.equals("h2")) {
            file = "ax_idempotency-h2.sql";
        } else if (p.equals("mariadb") || p.equals("mysql")) {
            file = "ax_idempotency-mariadb.sql";
        } else {
            throw new IllegalStateException("no bundled " + TABLE + " migration for " + databaseProduct
                    + " (there are PostgreSQL, MariaDB/MySQL and H2 ones); create the table as docs/sdk.md shows");
        }
        try (InputStream in = IdempotencyStore.class.getResourceAsStream(file)) {
            if (in == null) {
                throw new IllegalStateException("resource dev/ax/sdk/" + file + " is missing from the ax-sdk jar");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Inserts the request id; a key conflict means an earlier transaction committed it. */
    private static void claim(Connection c, String requestId) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(INSERT)) {
            ps.setString(1, requestId);
            ps.executeUpdate();
        } catch (SQLException e) {
            if (isUniqueViolation(e)) {
                throw new AlreadyRecorded(); // unwinds the transaction: PostgreSQL aborts it after an error anyway
            }
            if (isLockTimeout(e)) {
                throw new IllegalStateException(
                        "request id " + requestId + " is being processed by another transaction "
                                + "that holds it longer than the database's lock timeout; try again later",
                        e);
            }
            throw e;
        }
    }

    /** SQLState class 23 is an integrity constraint violation; the request id is never null, so it is the key. */
    static boolean isUniqueViolation(SQLException e) {
        for (SQLException s = e; s != null; s = s.getNextException()) {
            if (s.getSQLState() != null && s.getSQLState().startsWith("23")) {
                return true;
            }
        }
        return false;
    }

    /** H2's lock timeout, PostgreSQL's lock_not_available (with {@code lock_timeout} set), MariaDB's and MySQL's 1205. */
    private static boolean isLockTimeout(SQLException e) {
        return "HYT00".equals(e.getSQLState()) || "55P03".equals(e.getSQLState()) || e.getErrorCode() == 1205;
    }

    private static void checkRequestId(String requestId) {
        if (requestId == null || requestId.isBlank()) {
            throw new IllegalArgumentException("requestId is required");
        }
        if (requestId.length() > MAX_REQUEST_ID_LENGTH) {
            throw new IllegalArgumentException("requestId is longer than " + MAX_REQUEST_ID_LENGTH + " characters: "
                    + requestId.substring(0, 40) + "…");
        }
    }

    /** One JDBC transaction per call on a connection of its own; auto-commit restored before the connection goes back. */
    static JdbcTransactions plainJdbc(DataSource dataSource) {
        Objects.requireNonNull(dataSource, "dataSource");
        return new JdbcTransactions() {
            @Override
            public <T> T inTransaction(Work<T> work) throws Exception {
                try (Connection c = dataSource.getConnection()) {
                    boolean autoCommit = c.getAutoCommit();
                    c.setAutoCommit(false);
                    try {
                        T result = work.run(c);
                        c.commit();
                        return result;
                    } catch (Throwable t) {
                        try {
                            c.rollback();
                        } catch (SQLException r) {
                            t.addSuppressed(r);
                        }
                        throw t;
                    } finally {
                        c.setAutoCommit(autoCommit);
                    }
                }
            }
        };
    }

    /** The request id was committed before: unwinds the transaction to the replay path. */
    private static final class AlreadyRecorded extends RuntimeException {
        AlreadyRecorded() {
            super(null, null, false, false);
        }
    }
}
