package dev.ax.store;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The partitions of run output on PostgreSQL (V41–V43): {@code ax_log} is partitioned by the day (UTC) a chunk was
 * written, one table per day named {@code ax_log_YYYYMMDD}, after {@code ax_log_legacy}, which holds everything
 * written before partitioning began. AX makes each day's partition ahead of time ({@link #makeAhead}); history
 * retention drops a day whose every chunk has expired ({@link #drop}). Other databases keep one table and delete rows.
 *
 * <p>Nothing here runs on the firing or claim path. Making a partition takes only a SHARE UPDATE EXCLUSIVE lock on
 * {@code ax_log} (ATTACH of an empty table), dropping one a detach {@code CONCURRENTLY}: appends and reads of output go
 * on throughout.
 */
public final class HistoryPartitions {
    /** The partitioned table. */
    public static final String LOG = "ax_log";

    /** Days of partitions kept ready beyond today. */
    public static final int DAYS_AHEAD = 7;

    private static final DateTimeFormatter DAY = DateTimeFormatter.ofPattern("yyyyMMdd");
    /** Serialises the nodes making partitions: the same number on every node ("ax-part" in ASCII). */
    private static final long MAKER_LOCK = 0x61782d70617274L;
    /** Held by the node detaching a partition. */
    private static final long DROP_LOCK = MAKER_LOCK + 1;

    private final Database db;

    HistoryPartitions(Database db) {
        this.db = db;
    }

    /** One partition: what it holds is {@code from <= at < to}; {@code from} null for the first, unbounded below. */
    public record Partition(String name, Instant from, Instant to) {}

    /** Whether output is partitioned here (PostgreSQL) rather than one table deleted from row by row. */
    public boolean partitioned() {
        return db.dialect() == Dialect.POSTGRES;
    }

    /**
     * The partitions of {@code ax_log}, oldest first; empty where output is not partitioned. A partition another node is
     * detaching at that moment is left out.
     */
    public List<Partition> list(Tx tx) {
        if (!partitioned()) {
            return List.of();
        }
        // The bounds are read back through the session's own casts, so its time zone does not matter. A partition
        // caught mid-detach can show no bounds.
        return tx
                .query(
                        "SELECT c.relname AS name,"
                                + " CAST(substring(pg_get_expr(c.relpartbound, c.oid) FROM 'FROM \\(''([^'']*)''\\)')"
                                + " AS TIMESTAMPTZ) AS lower_bound,"
                                + " CAST(substring(pg_get_expr(c.relpartbound, c.oid) FROM 'TO \\(''([^'']*)''\\)')"
                                + " AS TIMESTAMPTZ) AS upper_bound"
                                + " FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid"
                                + " WHERE i.inhparent = CAST('" + LOG + "' AS REGCLASS) AND NOT i.inhdetachpending"
                                + " ORDER BY upper_bound",
                        r -> new Partition(r.str("name"), r.instant("lower_bound"), r.instant("upper_bound")))
                .stream()
                .filter(p -> p.to() != null)
                .toList();
    }

    /**
     * Makes the partitions of the days from the end of the newest one up to {@code days} days after today (the
     * database's today, UTC); returns how many it made. Nodes take turns (an advisory lock), so two at once make each
     * day once.
     */
    public int makeAhead(Tx tx, int days) {
        if (!partitioned()) {
            return 0;
        }
        tx.query("SELECT pg_advisory_xact_lock(?)", r -> null, MAKER_LOCK);
        LocalDate today = LocalDate.ofInstant(tx.now(), ZoneOffset.UTC);
        List<Partition> existing = list(tx);
        LocalDate from = existing.isEmpty()
                ? today
                : LocalDate.ofInstant(existing.getLast().to(), ZoneOffset.UTC);
        return makeDays(tx, from.isBefore(today) ? today : from, today.plusDays(days));
    }

    /**
     * Makes the partitions of the days {@code from} to {@code to}, both included, that no partition covers yet. For
     * tests and the benchmark, which load history dated in the past; the scheduler only makes days ahead.
     */
    public int makeDays(Tx tx, LocalDate from, LocalDate to) {
        int made = 0;
        List<Partition> existing = list(tx);
        for (LocalDate d = from; !d.isAfter(to); d = d.plusDays(1)) {
            Instant lower = d.atStartOfDay(ZoneOffset.UTC).toInstant();
            Instant upper = d.plusDays(1).atStartOfDay(ZoneOffset.UTC).toInstant();
            boolean covered = existing.stream()
                    .anyMatch(p -> (p.from() == null || p.from().isBefore(upper)) && p.to().isAfter(lower));
            if (covered) {
                continue;
            }
            String name = LOG + "_" + DAY.format(d);
            // An empty table attached with bounds that nothing else holds: no scan, no lock that stops appends.
            tx.update("CREATE TABLE " + name + " (LIKE " + LOG + " INCLUDING DEFAULTS)");
            tx.update("ALTER TABLE " + name + " ADD PRIMARY KEY (id)");
            tx.update("ALTER TABLE " + LOG + " ATTACH PARTITION " + name + " FOR VALUES FROM ('" + lower + "') TO ('"
                    + upper + "')");
            made++;
        }
        return made;
    }

    /** What one partition holds: its chunks, and how many of them have not expired. */
    public record Contents(long chunks, long live) {}

    /**
     * Reads a partition once: its chunks, and those that have not expired — of a run still going (or retrying), or of
     * a run that ended at or after {@code endedBefore}. Output of runs that are gone has expired. Empty when the
     * partition is gone (another node dropped it); while this transaction reads it, no node drops it.
     */
    public Optional<Contents> contents(Tx tx, String partition, Instant endedBefore) {
        String name = checkedName(partition);
        tx.query("SELECT pg_advisory_xact_lock_shared(?)", r -> null, dayLock(name));
        // From the catalog as of now (to_regclass may answer from this session's cache, older than a drop).
        if (tx.queryOne(
                                "SELECT COUNT(*) AS n FROM pg_class WHERE relname = ? AND relnamespace = CAST(current_schema()"
                                        + " AS REGNAMESPACE)",
                                r -> r.lng("n"),
                                name)
                        .orElse(0L)
                > 0) {
            // Each run is looked up by its key: a hash or merge join would read the whole (much larger) run table.
            tx.update("SET LOCAL enable_hashjoin = off");
            tx.update("SET LOCAL enable_mergejoin = off");
            return tx.queryOne(
                    "SELECT COUNT(*) AS chunks, COUNT(*) FILTER (WHERE EXISTS (SELECT 1 FROM ax_instance i"
                            + " WHERE i.id = l.instance_id AND (i.finished_at IS NULL OR i.finished_at >= ?))) AS live"
                            + " FROM " + name + " l",
                    r -> new Contents(r.lng("chunks"), r.lng("live")),
                    endedBefore);
        }
        return Optional.empty();
    }

    /**
     * Detaches a partition concurrently, then drops it; false when another node is reading or dropping it. A detach cut short (a
     * node stopped mid-way) is finished first.
     */
    public boolean drop(String partition) {
        String name = checkedName(partition);
        try (Connection c = db.dataSource().getConnection();
                Statement s = c.createStatement()) {
            c.setAutoCommit(true); // DETACH ... CONCURRENTLY refuses to run inside a transaction
            // One detach at a time per table (PostgreSQL's rule), and none of a partition a node is reading.
            if (!tryLock(s, DROP_LOCK)) {
                return false;
            }
            try {
                if (!tryLock(s, dayLock(name))) {
                    return false;
                }
                try {
                    finishDetachesCutShort(s);
                    if (!"attached".equals(state(s, name))) {
                        return false;
                    }
                    s.execute("ALTER TABLE " + LOG + " DETACH PARTITION " + name + " CONCURRENTLY");
                    s.execute("DROP TABLE " + name);
                    return true;
                } finally {
                    s.execute("SELECT pg_advisory_unlock(" + dayLock(name) + ")");
                }
            } finally {
                s.execute("SELECT pg_advisory_unlock(" + DROP_LOCK + ")");
            }
        } catch (SQLException e) {
            throw new StoreException("cannot drop the output partition " + name + ": " + e.getMessage(), e);
        }
    }

    private static boolean tryLock(Statement s, long key) throws SQLException {
        try (var rs = s.executeQuery("SELECT pg_try_advisory_lock(" + key + ")")) {
            return rs.next() && rs.getBoolean(1);
        }
    }

    /**
     * A node stopped in the middle of a drop leaves the partition pending detach, or detached and not dropped (a day's
     * table is made and attached in one transaction, so a day's table that is no partition is such a leftover):
     * finished here.
     */
    private static void finishDetachesCutShort(Statement s) throws SQLException {
        List<String> pending = new ArrayList<>();
        try (var rs = s.executeQuery("SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid"
                + " WHERE i.inhparent = CAST('" + LOG + "' AS REGCLASS) AND i.inhdetachpending")) {
            while (rs.next()) {
                pending.add(checkedName(rs.getString(1)));
            }
        }
        for (String name : pending) {
            s.execute("ALTER TABLE " + LOG + " DETACH PARTITION " + name + " FINALIZE");
        }
        List<String> detached = new ArrayList<>();
        try (var rs = s.executeQuery("SELECT c.relname FROM pg_class c WHERE c.relkind = 'r'"
                + " AND c.relnamespace = CAST(current_schema() AS REGNAMESPACE)"
                + " AND c.relname ~ '^" + LOG + "_(legacy|[0-9]{8})$'"
                + " AND NOT EXISTS (SELECT 1 FROM pg_inherits i WHERE i.inhrelid = c.oid)")) {
            while (rs.next()) {
                detached.add(checkedName(rs.getString(1)));
            }
        }
        for (String name : detached) {
            s.execute("DROP TABLE " + name);
        }
    }

    /** "attached", "pending" (a detach begun), "detached" (a table no longer a partition) or "gone". */
    private static String state(Statement s, String name) throws SQLException {
        try (var rs = s.executeQuery("SELECT i.inhdetachpending FROM pg_class c LEFT JOIN pg_inherits i"
                + " ON i.inhrelid = c.oid AND i.inhparent = CAST('" + LOG + "' AS REGCLASS)"
                + " WHERE c.oid = to_regclass('" + name + "')")) {
            if (!rs.next()) {
                return "gone";
            }
            boolean pending = rs.getBoolean(1);
            return rs.wasNull() ? "detached" : pending ? "pending" : "attached";
        }
    }

    /** The advisory lock of one partition: taken shared by a node reading it, alone by the node dropping it. */
    private static long dayLock(String name) {
        return MAKER_LOCK + 2 + name.hashCode();
    }

    /** A partition's name goes into DDL: only names this class makes are accepted. */
    private static String checkedName(String partition) {
        if (!partition.matches(LOG + "_(legacy|\\d{8})")) {
            throw new IllegalArgumentException("not an output partition: " + partition);
        }
        return partition;
    }
}
