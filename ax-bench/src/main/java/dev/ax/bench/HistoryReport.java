package dev.ax.bench;

import dev.ax.scheduler.HistoryRetention;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.StringJoiner;

/** The {@code history} workload's table and its lines against the bar, from what each of its steps returned. */
final class HistoryReport {
    /** History's lag p99 against the empty database's, and retention on against off: at most this ratio. */
    static final double LAG_RATIO = 1.2;

    static final double EXPIRY_GOAL = 10_000;
    static final double ROW_WRITES_GOAL = 4;

    private final HistoryCommand cmd;
    private final HistoryRetention retentionOff;
    private final HistoryRetention retentionOn;
    Map<String, Object> baseline = Map.of();
    Map<String, Object> seed = Map.of();
    Map<String, Object> off = Map.of();
    List<Map<String, Object>> pages = List.of();
    Map<String, Object> on = Map.of();

    HistoryReport(HistoryCommand cmd, HistoryRetention retentionOff, HistoryRetention retentionOn) {
        this.cmd = cmd;
        this.retentionOff = retentionOff;
        this.retentionOn = retentionOn;
    }

    W1Command.Outcome outcome() {
        String runs = compact(cmd.historyRuns);
        Table t = new Table(
                String.format(
                        "History: W1 N = %,d on an empty database and on %s runs of history (%d days), PostgreSQL;"
                                + " %d s measured after %d s warm-up",
                        cmd.tasks, runs, cmd.historyDays, cmd.opts.measure(), cmd.opts.warmup()),
                "step",
                "runs/s",
                "lag p50",
                "lag p99",
                "lag max",
                "missed",
                "expired/s",
                "rows/run",
                "index/run",
                "WAL/run",
                "note");
        double baseP99 = d(baseline, "lagP99Ms");
        double offP99 = d(off, "lagP99Ms");
        double onP99 = d(on, "lagP99Ms");
        double expiry = expiryRate();
        boolean ranOut = Boolean.TRUE.equals(on.get("expiredHistoryRanOut"));
        w1Row(t, "W1, empty database (baseline)", baseline, "-", "");
        w1Row(
                t,
                "W1, " + runs + " runs, retention off",
                off,
                "-",
                "lag p99 " + Table.ratio(offP99, baseP99) + " empty's");
        w1Row(
                t,
                "W1, " + runs + " runs, retention on",
                on,
                Table.num(expiry),
                "lag p99 " + Table.ratio(onP99, offP99) + " retention off's"
                        + (ranOut ? "; expired history ran out" : ""));
        Map<String, Object> worst = ConsolePages.worst(pages);
        double worstP95 = worst.isEmpty() ? Double.NaN : d(worst, "serverP95Ms");
        t.row(
                "console, worst page (" + runs + " runs)",
                "",
                "",
                "",
                "",
                "",
                "",
                "",
                "",
                "",
                worst.isEmpty()
                        ? "n/a"
                        : "p95 " + ConsolePages.ms(worst, "serverP95Ms") + " server time (" + worst.get("page") + ")");
        t.row(
                "per-run costs (baseline)",
                "",
                "",
                "",
                "",
                "",
                "",
                Table.dec(d(baseline, "rowWritesPerRun"), 1),
                indexEntries(baseline),
                Table.num(d(baseline, "walBytesPerRunInWindow")) + " B",
                perTable(baseline));
        notes(t, runs, ranOut);

        List<Map<String, Object>> results = new ArrayList<>();
        results.add(baseline);
        results.add(seed);
        results.add(off);
        results.addAll(pages);
        results.add(on);
        return new W1Command.Outcome(t, bars(runs, baseP99, offP99, onP99, expiry, ranOut, worst, worstP95), results);
    }

    private void notes(Table t, String runs, boolean ranOut) {
        t.note("W1: AX's side of `w1` (no-op consumers; lag = the body's start - the slot; missed = slots of the window"
                + " without a started run by its end + " + W1Systems.GRACE_MILLIS / 1000 + " s).");
        t.note(String.format(
                "history: %,d finished runs of the same %,d tasks (1 log chunk each; events only where a lean run keeps them: a failure, who started a manual run; 2.5 %% failed, no"
                        + " request ids), one every %s s over %d days up to the load; bulk SQL in %s statements, %s s,"
                        + " then VACUUM ANALYZE and CHECKPOINT %s s; database %,d MB. Both history windows start right"
                        + " after a VACUUM ANALYZE and a CHECKPOINT (autovacuum on this server: %s).",
                (long) d(seed, "runs"),
                cmd.tasks,
                seed.get("runEverySeconds"),
                cmd.historyDays,
                seed.get("statements"),
                seed.get("loadSeconds"),
                seed.get("vacuumSeconds"),
                (long) d(seed, "databaseMB"),
                cmd.opts.pg().setting("autovacuum")));
        t.note("retention off: " + describe(retentionOff) + " (nothing in the history expires; the loop still runs);"
                + " retention on: " + describe(retentionOn) + ". A round that used its perTick is followed at once by"
                + " the next (every paces only rounds that caught up), so expired/s is what the box sustained beside"
                + " W1, not a configured rate.");
        t.note(String.format(
                "retention on: %,d runs had expired at the node's start; retention deleted %,d in the warm-up and %,d in"
                        + " the window (the table's counters; %,d by its own totals, which move once a round).",
                (long) d(on, "expiredRunsAtStart"),
                (long) d(on, "retentionDeletedBeforeWindow"),
                (long) deletedInWindow(),
                (long) d(on, "retentionDeletedInWindowByTotals")));
        if (ranOut) {
            double into = d(on, "expiredHistoryRanOutSecondsIntoWindow");
            t.note("EXPIRED HISTORY RAN OUT "
                    + (into < 0 ? "in the warm-up" : Table.dec(into, 1) + " s into the window")
                    + ": retention idled for the rest, so expired/s is a lower bound and the lag comparison covers only"
                    + " part of the window. Load more (--history-runs) or expire more (--retention-days).");
        }
        t.note("rows/run, index/run, WAL/run: what the window wrote (pg_stat_user_tables of the ax_ tables, the WAL"
                + " position) per run finished, as slopes: the counters, read every " + WriteCosts.SAMPLE_MILLIS
                + " ms through the window, over the runs finished at the same instants (PostgreSQL adds a backend's"
                + " table counters to the shared ones at most once a second, so two reads alone would be off by up to"
                + " that much). index/run = (inserted + updated - HOT updated) row versions x the table's non-partial"
                + " indexes (each takes every version) to x all its indexes: the upper bound, since a partial index"
                + " takes only the versions it matches; a delete adds none. WAL is the whole server's: in the baseline"
                + " window the other databases wrote " + Table.num(d(baseline, "otherDatabasesRowWritesInWindow"))
                + " rows.");
        t.note("console: " + cmd.requests + " requests per page after 3 warm-up ones, server time (Server-Timing), on"
                + " the history as loaded plus the retention-off window's runs; W1's tasks paused meanwhile, retention"
                + " off.");
    }

    private List<Bar> bars(
            String runs,
            double baseP99,
            double offP99,
            double onP99,
            double expiry,
            boolean ranOut,
            Map<String, Object> worst,
            double worstP95) {
        List<Bar> bars = new ArrayList<>();
        bars.add(bar(
                String.format("history: W1 N=%,d lag p99 ≤ %.1f× empty", cmd.tasks, LAG_RATIO),
                "p99 with " + runs + " runs of history <= " + LAG_RATIO + "x the empty database's",
                Table.ms(offP99) + " vs " + Table.ms(baseP99) + " (" + Table.ratio(offP99, baseP99) + ")",
                Bar.yes(offP99 >= 0 && baseP99 > 0 && offP99 <= LAG_RATIO * baseP99)));
        bars.add(bar(
                "console ≤ 200 ms with " + runs + " runs",
                "worst page p95 <= 200 ms server time",
                worst.isEmpty()
                        ? "n/a"
                        : "worst p95 " + ConsolePages.ms(worst, "serverP95Ms") + " (" + worst.get("page") + ")",
                worst.isEmpty() ? "n/a" : Bar.yes(worstP95 <= ConsolePages.GOAL_MS)));
        boolean lagOk = onP99 >= 0 && offP99 > 0 && onP99 <= LAG_RATIO * offP99;
        bars.add(bar(
                "retention 10,000 runs/s raises W1 p99 ≤ 20 %",
                ">= 10,000 runs/s expired, W1 p99 <= 1.2x retention off's",
                Table.num(expiry) + " runs/s; p99 " + Table.ms(onP99) + " vs " + Table.ms(offP99) + " ("
                        + percent(onP99, offP99) + ")" + (ranOut ? "; expired history ran out" : ""),
                ranOut ? "n/a (ran out)" : Bar.yes(expiry >= EXPIRY_GOAL && lagOk)));
        double rows = d(baseline, "runRowWritesPerRun");
        bars.add(bar(
                "a run's routine life ≤ 4 row writes (with index entries and WAL bytes)",
                "<= 4 row writes per run (the executors' heartbeats apart)",
                Table.dec(rows, 2) + " row writes, " + indexEntries(baseline) + " index entries, "
                        + Table.num(d(baseline, "walBytesPerRunInWindow")) + " B WAL",
                Double.isNaN(rows) ? "n/a" : Bar.yes(rows <= ROW_WRITES_GOAL)));
        return bars;
    }

    static String describe(HistoryRetention r) {
        return String.format(
                Locale.ROOT,
                "runs P%dD, logs P%dD, every %s, perTick %,d, batch %,d",
                r.runs().toDays(),
                r.logs().toDays(),
                r.every(),
                r.perTick(),
                r.batch());
    }

    private static Bar bar(String workload, String goal, String ax, String met) {
        return new Bar(workload, goal, ax, "-", "-", "-", "-", met);
    }

    private static void w1Row(Table t, String step, Map<String, Object> r, String expired, String note) {
        t.row(
                step,
                Table.num(d(r, "runsPerSecond")),
                Table.ms(d(r, "lagP50Ms")),
                Table.ms(d(r, "lagP99Ms")),
                Table.ms(d(r, "lagMaxMs")),
                Table.num(d(r, "missedSlots")),
                expired,
                Table.dec(d(r, "rowWritesPerRun"), 1),
                indexEntries(r),
                Table.num(d(r, "walBytesPerRunInWindow")) + " B",
                note);
    }

    /** The index entries a run wrote, from what the non-partial indexes certainly took to the upper bound. */
    private static String indexEntries(Map<String, Object> r) {
        return Table.dec(d(r, "indexEntriesPerRunNonPartial"), 1) + "–" + Table.dec(d(r, "indexEntriesPerRun"), 1);
    }

    /** Runs deleted in the retention-on window: the run table's deleted rows (W1 itself deletes none). */
    private double deletedInWindow() {
        return on.get("rowsDeletedInWindow") instanceof Map<?, ?> m && m.get("ax_instance") instanceof Number n
                ? n.doubleValue()
                : Double.NaN;
    }

    private double expiryRate() {
        double seconds = d(on, "costWindowSeconds");
        return seconds > 0 ? deletedInWindow() / seconds : Double.NaN;
    }

    /** Each table's share of a run's writes: "ax_event 3.0 ins x 4 idx; ax_instance 1.0 ins + 2.0 upd (1.9 HOT)...". */
    private static String perTable(Map<String, Object> r) {
        if (!(r.get("writesPerTable") instanceof Map<?, ?> tables)) {
            return "";
        }
        StringJoiner all = new StringJoiner("; ");
        for (var e : tables.entrySet()) {
            if (!(e.getValue() instanceof Map<?, ?> w)) {
                continue;
            }
            @SuppressWarnings("unchecked")
            Map<String, Object> m = (Map<String, Object>) w;
            StringJoiner one = new StringJoiner(" + ");
            add(one, d(m, "insertedPerRun"), "ins");
            add(one, d(m, "updatedPerRun"), "upd" + hot(d(m, "hotUpdatedPerRun")));
            add(one, d(m, "deletedPerRun"), "del");
            if (one.length() > 0) {
                all.add(e.getKey() + " " + one + " x " + m.get("nonPartialIndexes") + "–" + m.get("indexes") + " idx");
            }
        }
        return all.toString();
    }

    private static void add(StringJoiner j, double perRun, String what) {
        if (perRun >= 0.005) {
            j.add(Table.dec(perRun, 2) + " " + what);
        }
    }

    private static String hot(double perRun) {
        return perRun >= 0.005 ? " (" + Table.dec(perRun, 2) + " HOT)" : "";
    }

    private static String percent(double value, double base) {
        return value >= 0 && base > 0 ? String.format(Locale.ROOT, "%+.0f %%", 100 * (value / base - 1)) : "n/a";
    }

    /** 10,000,000 as "10M", 200,000 as "200k"; other counts in full. */
    static String compact(long n) {
        if (n >= 1_000_000 && n % 100_000 == 0) {
            return (n % 1_000_000 == 0 ? Long.toString(n / 1_000_000) : Table.dec(n / 1e6, 1)) + "M";
        }
        if (n >= 1_000 && n % 1_000 == 0) {
            return n / 1_000 + "k";
        }
        return Table.num(n);
    }

    private static double d(Map<String, Object> m, String key) {
        return W2Command.d(m, key);
    }
}
