package dev.ax.bench;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.ToLongFunction;

/**
 * What a measured window wrote per run: WAL bytes, row writes (row versions inserted, updated and deleted in AX's
 * tables) and an estimate of the index entries those wrote.
 *
 * <p>The table counters ({@code pg_stat_user_tables}) are not live: on PostgreSQL 15 a backend adds its own to the
 * shared ones when a transaction ends at least a second after its last flush (an idle one after up to 10 s), and
 * {@code pg_stat_force_next_flush()} flushes only the backend that calls it. So the counters seen at any moment miss
 * each connection's last second or two of writes, a different amount at every read: a difference of two reads is off
 * by up to that much, and W1 writes in a burst at each whole second, so its runs finished are a staircase too. The
 * counters (and the WAL position) are therefore read every {@value #SAMPLE_MILLIS} ms through the window, and what is
 * reported per run is the least-squares slope of each counter over the slope of the runs finished at the same instants
 * (from the runs' own {@code finished_at}): the flushes' jitter and the bursts average out over the window. Each read
 * is a transaction of its own (autocommit), so {@code stats_fetch_consistency = cache} never hands back an earlier
 * read's snapshot: no {@code pg_stat_clear_snapshot()} needed. The WAL position is the whole server's: the result
 * says how many rows the other databases wrote meanwhile.
 */
final class WriteCosts implements Window.Probe {
    static final long SAMPLE_MILLIS = 200;

    private final Pg pg;
    private final String database;
    /** Runs above this id are the measurement's: read before the node starts. */
    private final long afterId;

    private final List<Sample> samples = new ArrayList<>();
    private final CountDownLatch stop = new CountDownLatch(1);
    private Thread sampler;
    private volatile RuntimeException failure;

    /** One table's counters, and how many indexes it has (of which not partial). */
    record Counts(long inserted, long updated, long hotUpdated, long deleted, int indexes, int fullIndexes) {}

    private record Sample(long millis, long walBytes, Map<String, Counts> tables, Map<String, Long> otherDatabases) {}

    WriteCosts(Pg pg, String database) {
        this.pg = pg;
        this.database = database;
        this.afterId = pg.scalar(database, "SELECT COALESCE(MAX(id), 0) FROM ax_instance");
    }

    @Override
    public void atStart() {
        sampler = Thread.ofPlatform().daemon(true).name("write-costs").start(this::sample);
    }

    @Override
    public void atEnd() {
        stop.countDown();
        try {
            sampler.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void sample() {
        try (Connection c = pg.connect(database);
                Statement s = c.createStatement()) {
            c.setAutoCommit(true);
            do {
                samples.add(read(s));
            } while (!stop.await(SAMPLE_MILLIS, TimeUnit.MILLISECONDS));
            samples.add(read(s));
        } catch (SQLException e) {
            failure = new IllegalStateException("reading the write counters of " + database + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static Sample read(Statement s) throws SQLException {
        long millis = System.currentTimeMillis();
        long wal = HistorySeed.one(s, "SELECT pg_current_wal_lsn() - '0/0'::pg_lsn");
        Map<String, Counts> tables = new TreeMap<>();
        try (ResultSet r = s.executeQuery("SELECT t.relname, t.n_tup_ins, t.n_tup_upd, t.n_tup_hot_upd, t.n_tup_del,"
                + " (SELECT COUNT(*) FROM pg_index i WHERE i.indrelid = t.relid),"
                + " (SELECT COUNT(*) FROM pg_index i WHERE i.indrelid = t.relid AND i.indpred IS NULL)"
                + " FROM pg_stat_user_tables t WHERE t.relname LIKE 'ax\\_%'")) {
            while (r.next()) {
                tables.put(
                        r.getString(1),
                        new Counts(r.getLong(2), r.getLong(3), r.getLong(4), r.getLong(5), r.getInt(6), r.getInt(7)));
            }
        }
        Map<String, Long> others = new TreeMap<>();
        try (ResultSet r =
                s.executeQuery("SELECT datname, tup_inserted + tup_updated + tup_deleted FROM pg_stat_database"
                        + " WHERE datname IS NOT NULL AND datname <> current_database()")) {
            while (r.next()) {
                others.put(r.getString(1), r.getLong(2));
            }
        }
        return new Sample(millis, wal, tables, others);
    }

    /** Per run finished in the window: WAL, row writes, index entries, each table's share; and the window's deletes. */
    @Override
    public Map<String, Object> result() {
        if (failure != null) {
            throw failure;
        }
        Map<String, Object> m = new LinkedHashMap<>();
        if (samples.size() < 3) {
            return m;
        }
        Sample first = samples.getFirst();
        Sample last = samples.getLast();
        long[] finished = finishedMillis(first.millis(), last.millis());
        double runsPerMs = slope(s -> finishedBy(finished, s.millis()));
        Map<String, Object> perTable = new TreeMap<>();
        Map<String, Long> deleted = new TreeMap<>();
        double rows = 0;
        // Without the executors' own rows (heartbeats: per executor and interval, whatever the runs).
        double runRows = 0;
        double entries = 0;
        double fullEntries = 0;
        for (String table : last.tables().keySet()) {
            ToLongFunction<Sample> ins = field(table, Counts::inserted);
            ToLongFunction<Sample> upd = field(table, Counts::updated);
            ToLongFunction<Sample> hot = field(table, Counts::hotUpdated);
            ToLongFunction<Sample> del = field(table, Counts::deleted);
            deleted.put(table, del.applyAsLong(last) - del.applyAsLong(first));
            double i = slope(ins) / runsPerMs;
            double u = slope(upd) / runsPerMs;
            double h = slope(hot) / runsPerMs;
            double d = slope(del) / runsPerMs;
            Counts c = last.tables().get(table);
            Counts f = countsAt(first, table);
            // A new row version goes into every index unless it is a HOT update (no indexed column changed, the new
            // version on the same page); a delete adds none (vacuum removes the entries later). Every non-partial
            // index takes it: a lower bound. Every index: an upper bound, a partial one taking only what it matches.
            rows += i + u + d;
            if (!table.startsWith("ax_executor")) {
                runRows += i + u + d;
            }
            entries += (i + u - h) * c.indexes();
            fullEntries += (i + u - h) * c.fullIndexes();
            if (c.inserted() + c.updated() + c.deleted() > f.inserted() + f.updated() + f.deleted()) {
                Map<String, Object> t = new LinkedHashMap<>();
                t.put("insertedPerRun", round(i));
                t.put("updatedPerRun", round(u));
                t.put("hotUpdatedPerRun", round(h));
                t.put("deletedPerRun", round(d));
                t.put("indexes", c.indexes());
                t.put("nonPartialIndexes", c.fullIndexes());
                perTable.put(table, t);
            }
        }
        m.put("costWindowSeconds", (last.millis() - first.millis()) / 1000.0);
        m.put("costSamples", samples.size());
        m.put("runsFinishedInWindow", finished.length);
        m.put("runsFinishedPerSecond", round(runsPerMs * 1000));
        m.put("walBytesPerRunInWindow", Math.round(slope(Sample::walBytes) / runsPerMs));
        m.put("rowWritesPerRun", round(rows));
        m.put("runRowWritesPerRun", round(runRows));
        m.put("indexEntriesPerRun", round(entries));
        m.put("indexEntriesPerRunNonPartial", round(fullEntries));
        m.put("writesPerTable", perTable);
        m.put("rowsDeletedInWindow", deleted);
        // Of the databases there at both ends (one dropped meanwhile takes its counters with it).
        long others = 0;
        for (var e : last.otherDatabases().entrySet()) {
            Long before = first.otherDatabases().get(e.getKey());
            others += before == null ? 0 : Math.max(0, e.getValue() - before);
        }
        m.put("otherDatabasesRowWritesInWindow", others);
        m.put(
                "costsNote",
                "least-squares slopes of the counters sampled every " + SAMPLE_MILLIS
                        + " ms through the window over the slope of the runs finished; rowsDeletedInWindow: last"
                        + " sample minus first");
        return m;
    }

    /** When each run of this measurement that finished between the two instants finished (epoch ms), ascending. */
    private long[] finishedMillis(long from, long to) {
        List<Long> at = new ArrayList<>();
        try (Connection c = pg.connect(database);
                Statement s = c.createStatement();
                ResultSet r = s.executeQuery("SELECT (EXTRACT(EPOCH FROM finished_at) * 1000)::bigint FROM ax_instance"
                        + " WHERE id > " + afterId + " AND finished_at >= to_timestamp(" + from
                        + " / 1000.0) AND finished_at <= to_timestamp(" + to + " / 1000.0)")) {
            while (r.next()) {
                at.add(r.getLong(1));
            }
        } catch (SQLException e) {
            throw new IllegalStateException("reading when the runs finished: " + e.getMessage(), e);
        }
        return at.stream().mapToLong(Long::longValue).sorted().toArray();
    }

    /** How many of {@code finished} (ascending) are at or before {@code millis}. */
    private static long finishedBy(long[] finished, long millis) {
        int lo = 0;
        int hi = finished.length;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (finished[mid] <= millis) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    private static Counts countsAt(Sample s, String table) {
        return s.tables().getOrDefault(table, new Counts(0, 0, 0, 0, 0, 0));
    }

    private static ToLongFunction<Sample> field(String table, ToLongFunction<Counts> f) {
        return s -> f.applyAsLong(countsAt(s, table));
    }

    /** The least-squares slope of {@code y} over the samples' time, per millisecond. */
    private double slope(ToLongFunction<Sample> y) {
        double mx = 0;
        double my = 0;
        for (Sample s : samples) {
            mx += s.millis();
            my += y.applyAsLong(s);
        }
        mx /= samples.size();
        my /= samples.size();
        double sxy = 0;
        double sxx = 0;
        for (Sample s : samples) {
            double dx = s.millis() - mx;
            sxy += dx * (y.applyAsLong(s) - my);
            sxx += dx * dx;
        }
        return sxx == 0 ? Double.NaN : sxy / sxx;
    }

    private static double round(double v) {
        return Window.round2(v);
    }
}
