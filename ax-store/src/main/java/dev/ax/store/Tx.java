package dev.ax.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One database transaction. The stores take a {@code Tx} so that a state change and its event
 * always commit together. A thin helper over JDBC: statements, binding, mapping — no ORM.
 */
public final class Tx {
    private final Connection connection;
    private final Dialect dialect;
    private List<Runnable> afterCommit;

    Tx(Connection connection, Dialect dialect) {
        this.connection = connection;
        this.dialect = dialect;
    }

    public Dialect dialect() {
        return dialect;
    }

    /** Runs {@code action} once this transaction has committed; never if it rolls back. For caches of what is committed. */
    void afterCommit(Runnable action) {
        if (afterCommit == null) {
            afterCommit = new ArrayList<>();
        }
        afterCommit.add(action);
    }

    void committed() {
        if (afterCommit != null) {
            afterCommit.forEach(Runnable::run);
            afterCommit = null;
        }
    }

    @FunctionalInterface
    public interface RowMapper<T> {
        T map(Row row) throws SQLException;
    }

    public <T> List<T> query(String sql, RowMapper<T> mapper, Object... args) {
        try (PreparedStatement ps = connection.prepareStatement(dialect.sql(sql))) {
            bind(ps, args);
            try (ResultSet rs = ps.executeQuery()) {
                List<T> out = new ArrayList<>();
                Row row = new Row(rs, dialect);
                while (rs.next()) {
                    out.add(mapper.map(row));
                }
                return out;
            }
        } catch (SQLException e) {
            throw new StoreException(e.getMessage() + " [" + sql + "]", e);
        }
    }

    public <T> Optional<T> queryOne(String sql, RowMapper<T> mapper, Object... args) {
        List<T> rows = query(sql, mapper, args);
        if (rows.size() > 1) {
            throw new StoreException("expected at most one row, got " + rows.size() + " [" + sql + "]");
        }
        // A mapper may map a row to null (an aggregate over no rows): that is "no value", not an error.
        return rows.isEmpty() ? Optional.empty() : Optional.ofNullable(rows.getFirst());
    }

    /** Runs an INSERT/UPDATE/DELETE and returns the row count; callers check it (zero = lost a race). */
    public int update(String sql, Object... args) {
        try (PreparedStatement ps = connection.prepareStatement(dialect.sql(sql))) {
            bind(ps, args);
            return ps.executeUpdate();
        } catch (SQLException e) {
            throw new StoreException(e.getMessage() + " [" + sql + "]", e);
        }
    }

    /** Runs an INSERT and returns the generated id, or empty when the insert wrote no row. */
    public Optional<Long> insert(String sql, Object... args) {
        try {
            return insertOrThrow(sql, args);
        } catch (SQLException e) {
            throw new StoreException(e.getMessage() + " [" + sql + "]", e);
        }
    }

    /**
     * Like {@link #insert} but a unique-key violation yields empty instead of an error: for statements
     * that end in {@link Dialect#onConflictDoNothing}, which some databases cannot express (H2,
     * MariaDB), where a failed statement leaves the transaction usable.
     */
    public Optional<Long> insertUnlessDuplicate(String sql, Object... args) {
        try {
            return insertOrThrow(sql, args);
        } catch (SQLException e) {
            if (takenKey(e)) {
                return Optional.empty();
            }
            throw new StoreException(e.getMessage() + " [" + sql + "]", e);
        }
    }

    /** {@link #insertUnlessDuplicate} for a table without an id: the row count, 0 when the key was taken. */
    public int updateUnlessDuplicate(String sql, Object... args) {
        try (PreparedStatement ps = connection.prepareStatement(dialect.sql(sql))) {
            bind(ps, args);
            return ps.executeUpdate();
        } catch (SQLException e) {
            if (takenKey(e)) {
                return 0;
            }
            throw new StoreException(e.getMessage() + " [" + sql + "]", e);
        }
    }

    private boolean takenKey(SQLException e) {
        return dialect.isUniqueViolation(e) && dialect.goesOnAfterFailedStatement();
    }

    private Optional<Long> insertOrThrow(String sql, Object... args) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(dialect.sql(sql), new String[] {"id"})) {
            bind(ps, args);
            if (ps.executeUpdate() == 0) {
                return Optional.empty();
            }
            try (ResultSet keys = ps.getGeneratedKeys()) {
                return keys.next() ? Optional.of(keys.getLong(1)) : Optional.empty();
            }
        }
    }

    /** Runs one statement many times in a JDBC batch; returns the row count of each. */
    public int[] batch(String sql, List<Object[]> rows) {
        if (rows.isEmpty()) {
            return new int[0];
        }
        try (PreparedStatement ps = connection.prepareStatement(dialect.sql(sql))) {
            for (Object[] args : rows) {
                bind(ps, args);
                ps.addBatch();
            }
            int[] counts = ps.executeBatch();
            for (int i = 0; i < counts.length; i++) {
                if (counts[i] == Statement.SUCCESS_NO_INFO) {
                    counts[i] = 1;
                }
            }
            return counts;
        } catch (SQLException e) {
            throw new StoreException(e.getMessage() + " [" + sql + "]", e);
        }
    }

    /**
     * Serialises transactions that name the same key until they end: a PostgreSQL advisory lock; on
     * MariaDB the row of {@code ax_key_lock} the key's hash names (MariaDB's named locks outlive the
     * transaction). Two keys may share a lock, as two keys may share a hash on PostgreSQL: one then
     * waits for the other, no more. A no-op on the embedded database, where claims are already
     * serialised in the JVM.
     */
    public void lockKey(String key) {
        switch (dialect) {
            case POSTGRES -> query("SELECT pg_advisory_xact_lock(hashtext(?)) IS NULL AS locked", r -> true, key);
            case MARIADB ->
                update(
                        "INSERT INTO ax_key_lock (slot) VALUES (?) ON DUPLICATE KEY UPDATE slot = slot",
                        Math.floorMod(key.hashCode(), KEY_LOCK_SLOTS));
            case H2 -> {}
        }
    }

    /** Rows of {@code ax_key_lock} (MariaDB) the keys of {@link #lockKey} are spread over. */
    static final int KEY_LOCK_SLOTS = 4096;

    /**
     * Until this transaction ends, PostgreSQL reads tables through plain index scans only (its
     * bitmap and sequential scans are off). For the hot paths that look up a few runs whose
     * statistics mislead the planner:
     * <ul>
     * <li>The few live runs in a state every run passes through (RUNNING): the index keeps an
     * entry for every run that was in that state since the table was last vacuumed, and the
     * planner, which counts those entries as rows, prefers a bitmap scan that checks every one of
     * them in the table again on each execution (130 ms for 150,000 finished runs, every
     * housekeeping tick). A plain index scan marks the entries of finished runs dead on its first
     * visit and steps over them from then on (0.4 ms).</li>
     * <li>Runs by id (a claim, a group of reports) in a run table that grows faster than its
     * statistics: on a new database the planner read the whole table for each claim and each
     * group of successes (40–100 ms each in the first seconds at 10,000 runs a second), and at
     * 1,000 runs a second, with 20,000–30,000 runs in the table, it still did for 38 claims in
     * 25 s (W1's lag p99 30–38 → 19–25 ms with plain index scans).</li>
     * </ul>
     * A no-op on the embedded database.
     */
    public void preferPlainIndexScans() {
        if (dialect == Dialect.POSTGRES) {
            query(
                    "SELECT set_config('enable_bitmapscan', 'off', TRUE) AS b, set_config('enable_seqscan', 'off', TRUE) AS s",
                    r -> true);
        }
    }

    /** The database's current time: the one clock every node agrees on (invariant 2). */
    public Instant now() {
        return queryOne("SELECT CURRENT_TIMESTAMP", r -> r.instant(1)).orElseThrow();
    }

    /**
     * An enum constant (a state, a kind, an event type) as an SQL literal, to write into a statement
     * instead of binding it: PostgreSQL proves a partial index's predicate only against a constant,
     * and a prepared statement run often gets the generic plan, which cannot know that
     * {@code state = 'RUNNING'} matches 40 rows of a million. Enum names are safe to inline.
     */
    public static String literal(Enum<?> value) {
        return "'" + value.name() + "'";
    }

    private void bind(PreparedStatement ps, Object[] args) throws SQLException {
        for (int i = 0; i < args.length; i++) {
            Object a = args[i];
            int idx = i + 1;
            switch (a) {
                case null -> ps.setNull(idx, Types.NULL);
                // MariaDB's DATETIME columns hold UTC without a zone: no zone for the driver to convert to.
                case Instant t
                when dialect == Dialect.MARIADB -> ps.setObject(idx, LocalDateTime.ofInstant(t, ZoneOffset.UTC));
                case Instant t -> ps.setObject(idx, OffsetDateTime.ofInstant(t, ZoneOffset.UTC));
                case Enum<?> e -> ps.setString(idx, e.name());
                // MariaDB's driver finds the codec of a setObject by asking each of its codecs in turn: a fifth of the
                // node's CPU for a firing batch's thousands of parameters. The typed setters go straight to theirs.
                case String v when dialect == Dialect.MARIADB -> ps.setString(idx, v);
                case Long v when dialect == Dialect.MARIADB -> ps.setLong(idx, v);
                case Integer v when dialect == Dialect.MARIADB -> ps.setInt(idx, v);
                case Boolean v when dialect == Dialect.MARIADB -> ps.setBoolean(idx, v);
                default -> ps.setObject(idx, a);
            }
        }
    }

    /** Typed access to the current row of a result set. */
    public static final class Row {
        private final ResultSet rs;
        private final Dialect dialect;
        /**
         * Each label's column, found once per result set: MariaDB's driver looks a label up by lower-casing it and
         * comparing it with each column's, at every call (a run's row has 29 columns, read by label).
         */
        private final Map<String, Integer> columns = new HashMap<>();

        Row(ResultSet rs, Dialect dialect) {
            this.rs = rs;
            this.dialect = dialect;
        }

        private int column(String label) throws SQLException {
            Integer at = columns.get(label);
            if (at == null) {
                at = rs.findColumn(label);
                columns.put(label, at);
            }
            return at;
        }

        public String str(String col) throws SQLException {
            return rs.getString(column(col));
        }

        public long lng(String col) throws SQLException {
            return rs.getLong(column(col));
        }

        public int integer(String col) throws SQLException {
            return rs.getInt(column(col));
        }

        public Long nullableLong(String col) throws SQLException {
            long v = rs.getLong(column(col));
            return rs.wasNull() ? null : v;
        }

        public Integer nullableInt(String col) throws SQLException {
            int v = rs.getInt(column(col));
            return rs.wasNull() ? null : v;
        }

        public byte[] bytes(String col) throws SQLException {
            return rs.getBytes(column(col));
        }

        public boolean bool(String col) throws SQLException {
            return rs.getBoolean(column(col));
        }

        public Instant instant(String col) throws SQLException {
            return instant(column(col));
        }

        public Instant instant(int col) throws SQLException {
            if (dialect == Dialect.MARIADB) {
                LocalDateTime utc = rs.getObject(col, LocalDateTime.class);
                return utc == null ? null : utc.toInstant(ZoneOffset.UTC);
            }
            OffsetDateTime t = rs.getObject(col, OffsetDateTime.class);
            return t == null ? null : t.toInstant();
        }

        public long lng(int col) throws SQLException {
            return rs.getLong(col);
        }

        public <E extends Enum<E>> E enumOf(Class<E> type, String col) throws SQLException {
            String v = rs.getString(column(col));
            return v == null ? null : Enum.valueOf(type, v);
        }
    }
}
