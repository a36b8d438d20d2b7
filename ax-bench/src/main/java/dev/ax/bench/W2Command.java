package dev.ax.bench;

import dev.ax.domain.run.Cause;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.Histogram;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * W2 "burst": R one-time runs due at the same instant; how fast does each system drain them?
 * The runs are inserted due now while the system is stopped, the tables are vacuumed, and then
 * the system starts (t0): at t0 all R runs are due at once. Lag = start - t0. AX's runs are
 * inserted with batched SQL shaped exactly like {@code RunStore.create} (run row plus
 * its CREATED event), because creating 100,000 runs through {@code Tasks.trigger} takes
 * longer than the drain itself; that API path's own rate is measured separately and reported.
 */
@Command(name = "w2", description = "W2 burst: R one-time runs due at once; drain rate and lag (AX, db-scheduler)")
final class W2Command implements Callable<Integer> {
    @Mixin
    BenchOptions opts = new BenchOptions();

    @Option(
            names = "--runs",
            defaultValue = "100000",
            description = "R, runs due at once (default ${DEFAULT-VALUE}; --quick: 20,000)")
    int runs;

    @Option(
            names = "--systems",
            defaultValue = "ax,ax-mariadb,db-scheduler",
            description = "AX on PostgreSQL, AX on MariaDB, db-scheduler (default ${DEFAULT-VALUE})")
    String systems;

    @Option(
            names = "--ax-consumers",
            defaultValue = "20",
            description = "AX no-op consumer (poll) threads (default ${DEFAULT-VALUE}," + " db-scheduler's --threads)")
    int axConsumers;

    @Option(names = "--ax-batch", defaultValue = "100")
    int axBatch;

    @Option(
            names = "--ax-tasks",
            defaultValue = "1",
            description =
                    "event tasks AX's runs are spread over (db-scheduler always uses one task) (default ${DEFAULT-VALUE})")
    int axTasks = 1;

    @Option(
            names = "--trigger-threads",
            defaultValue = "4",
            description = "threads calling Tasks.trigger for the API-path insert rate")
    int triggerThreads;

    @Option(
            names = "--trigger-seconds",
            defaultValue = "10",
            description = "how long the API-path insert rate is measured")
    int triggerSeconds;

    @Option(names = "--threads", defaultValue = "20", description = "db-scheduler threads (default ${DEFAULT-VALUE})")
    int threads;

    @Option(names = "--dbs-poll-ms", defaultValue = "100")
    long dbsPollMillis;

    @Option(
            names = "--drain-timeout",
            defaultValue = "150",
            description = "seconds; a drain not finished by then is reported as partial")
    int drainTimeout;

    @Override
    public Integer call() {
        W1Command.Outcome o = run();
        System.out.println(o.table().render());
        System.out.println(Bar.table(o.bars()).render());
        return 0;
    }

    int effectiveRuns() {
        return opts.quick ? Math.min(runs, 20_000) : runs;
    }

    W1Command.Outcome run() {
        Pg pg = opts.pg();
        Set<String> which = opts.reachable(W1Systems.systems(systems));
        int r = effectiveRuns();
        List<Map<String, Object>> results = new ArrayList<>();
        Map<String, Object> ax = null;
        Map<String, Object> maria = null;
        Map<String, Object> dbs = null;
        if (which.contains("ax")) {
            ax = ax(pg, r, results);
        }
        if (which.contains("ax-mariadb")) {
            maria = ax(opts.mariadb(), r, results);
        }
        // Beside AX on both servers, the same drain in bare SQL on each: how far apart the servers themselves are.
        BareQueue.Figures bare = null;
        if (ax != null && maria != null) {
            opts.awaitQuiet();
            bare = BareQueue.onBoth(pg, opts.mariadb(), r);
            results.add(bare.toMap());
        }
        if (which.contains("db-scheduler")) {
            System.err.printf("w2 R=%,d: db-scheduler drain ...%n", r);
            opts.awaitQuiet();
            System.gc();
            dbs = W2DbScheduler.drain(pg, r, threads, dbsPollMillis, drainTimeout);
            results.add(dbs);
        }
        Table t = new Table(
                String.format("W2 burst, %,d one-time runs due at once, single run", r),
                "system",
                "drained",
                "drain runs/s",
                "lag p50",
                "lag p99",
                "lag max",
                "insert path",
                "inserts/s",
                "JVM CPU",
                "DB CPU",
                "commits/run",
                "WAL/run",
                "tables",
                "load");
        for (Map<String, Object> m : Arrays.asList(ax, maria, dbs)) {
            if (m == null) {
                continue;
            }
            t.row(
                    m.get("system")
                            + (m.containsKey("axTasks")
                                    ? " (" + m.get("axTasks") + " task" + (axTasks == 1 ? ")" : "s)")
                                    : ""),
                    Table.num(d(m, "drained"))
                            + (Boolean.TRUE.equals(m.get("complete"))
                                    ? ""
                                    : " of " + Table.num(d(m, "runs")) + " (timeout)"),
                    Table.num(d(m, "drainRunsPerSecond")),
                    Table.ms(d(m, "lagP50Ms")),
                    Table.ms(d(m, "lagP99Ms")),
                    Table.ms(d(m, "lagMaxMs")),
                    m.get("insertPath"),
                    Table.num(d(m, "insertsPerSecond")),
                    Table.cores(d(m, "jvmCpuCores")),
                    Table.cores(d(m, "postgresCpuCores")),
                    Table.dec(d(m, "dbCommitsPerRun"), 2),
                    Table.num(d(m, "walBytesPerRun")) + " B",
                    Table.mb(d(m, "tableBytesTotal")),
                    Table.dec(d(m, "loadAverageAtStart"), 1));
        }
        for (Map<String, Object> m : Arrays.asList(ax, maria)) {
            if (m != null) {
                t.row(
                        m.get("system") + " (API path)",
                        "",
                        "",
                        "",
                        "",
                        "",
                        "Tasks.trigger x" + triggerThreads,
                        Table.num(d(m, "apiPathInsertsPerSecond")),
                        "",
                        "",
                        "",
                        "",
                        "");
            }
        }
        if (bare != null) {
            bare.addTo(t);
        }
        double axRate = ax == null ? Double.NaN : d(ax, "drainRunsPerSecond");
        double dbsRate = dbs == null ? Double.NaN : d(dbs, "drainRunsPerSecond");
        t.note(
                "drain = from the start of the idle system with all runs due (t0) to the last completion (AX: SUCCESS written; db-scheduler: row deleted).");
        t.note("lag = run start - t0. CPU in cores over the drain (DB: postgres processes; mariadbd for AX on MariaDB)."
                + " inserts/s is the set-up path, not part of the drain. For AX on MariaDB, commits and WAL are the"
                + " server's COMMITs and InnoDB redo log.");
        t.note("drain runs/s AX / db-scheduler = " + Table.ratio(axRate, dbsRate) + "; lag p99 AX / db-scheduler = "
                + Table.ratio(
                        ax == null ? Double.NaN : d(ax, "lagP99Ms"), dbs == null ? Double.NaN : d(dbs, "lagP99Ms")));
        Map<String, Object> options = opts.toMap();
        options.put("runs", r);
        options.put("axConsumers", axConsumers);
        options.put("axBatch", axBatch);
        options.put("axTasks", axTasks);
        options.put("dbSchedulerThreads", threads);
        options.put("dbSchedulerPollMillis", dbsPollMillis);
        System.err.println("results: " + Results.write(opts.resultsDir, "w2-" + r, options, results, t.render(), pg));
        boolean met = axRate >= 10_000 && axRate >= 2 * (Double.isNaN(dbsRate) ? 0 : dbsRate);
        List<Bar> bars = new ArrayList<>();
        bars.add(new Bar(
                String.format("W2 %,d due at once, drain", r),
                ">= 10,000 runs/s, >= 2x db-scheduler",
                Table.num(axRate) + "/s",
                "-",
                Table.num(dbsRate) + "/s",
                "-",
                Table.ratio(axRate, dbsRate),
                ax == null ? "n/a" : Bar.yes(met)));
        if (maria != null) {
            bars.add(W1Command.mariadbBar(
                    String.format("MariaDB store, W2 %,d due at once", r),
                    d(maria, "drainRunsPerSecond"),
                    d(maria, "lagP99Ms"),
                    axRate,
                    ax == null ? Double.NaN : d(ax, "lagP99Ms"),
                    bare == null ? "" : "; " + bare.ratioText()));
        }
        return new W1Command.Outcome(t, bars, results);
    }

    /** AX's trigger path, then its drain, on {@code db}; both go into {@code results}; returns the drain. */
    private Map<String, Object> ax(BenchDb db, int r, List<Map<String, Object>> results) {
        System.err.printf("w2 R=%,d: %s trigger path ...%n", r, db.axSystem());
        opts.awaitQuiet();
        Map<String, Object> trig = axTriggerRate(db);
        results.add(trig);
        System.err.printf("w2 R=%,d: %s drain ...%n", r, db.axSystem());
        opts.awaitQuiet();
        System.gc();
        Map<String, Object> drain = axDrain(db, r);
        drain.put("apiPathInsertsPerSecond", trig.get("insertsPerSecond"));
        results.add(drain);
        return drain;
    }

    static double d(Map<String, Object> m, String key) {
        return m.get(key) instanceof Number n ? n.doubleValue() : Double.NaN;
    }

    // ---- AX -------------------------------------------------------------------------------

    private static final Map<String, Object> EVENT = Map.of("type", "event");

    /** Runs created through {@code Tasks.trigger} (what POST /api/trigger calls) for a few seconds, nothing consuming. */
    Map<String, Object> axTriggerRate(BenchDb pg) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("system", pg.axSystem());
        out.put(
                "phase",
                "API-path insert rate: Tasks.trigger(Cause.EVENT) from " + triggerThreads
                        + " threads, one event task, overflow ALLOW");
        try (AxHarness ax = AxHarness.open(pg, "ax_bench", triggerThreads + 4)) {
            ax.node.tasks().create(AxHarness.task("burst", EVENT, "ALLOW"), "bench");
            AtomicLong done = new AtomicLong();
            AtomicLong errors = new AtomicLong();
            long deadline =
                    System.nanoTime() + Duration.ofSeconds(triggerSeconds).toNanos();
            long start = System.nanoTime();
            List<Thread> threads = new ArrayList<>();
            for (int i = 0; i < triggerThreads; i++) {
                threads.add(Thread.ofPlatform().start(() -> {
                    while (System.nanoTime() < deadline) {
                        try {
                            ax.node.tasks().trigger("burst", Map.of(), Cause.EVENT, "bench");
                            done.incrementAndGet();
                        } catch (RuntimeException e) {
                            errors.incrementAndGet();
                        }
                    }
                }));
            }
            for (Thread th : threads) {
                th.join();
            }
            double secs = (System.nanoTime() - start) / 1e9;
            out.put("inserts", done.get());
            out.put("errors", errors.get());
            out.put("insertsPerSecond", W1Stats.round(done.get() / secs));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return out;
    }

    Map<String, Object> axDrain(BenchDb pg, int r) {
        String db = "ax_bench";
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("system", pg.axSystem());
        out.put(
                "config",
                "SchedulerNode on " + pg.product() + ", " + axConsumers + " no-op consumers polling " + axBatch
                        + " at a time; " + axTasks + " event task(s), overflow ALLOW");
        out.put("axTasks", axTasks);
        out.put("insertPath", "batched SQL (run + CREATED event)");
        Window w = new Window(pg, db);
        long t0;
        try (AxHarness ax = AxHarness.open(pg, db, axConsumers + 6)) {
            for (int k = 0; k < axTasks; k++) {
                ax.node.tasks().create(AxHarness.task("burst-" + k, EVENT, "ALLOW"), "bench");
            }
            long t = System.nanoTime();
            bulkInsertAx(pg, db, axTasks, r);
            out.put("insertsPerSecond", W1Stats.round(r / ((System.nanoTime() - t) / 1e9)));
            pg.analyze(db, "ax_instance", "ax_event");
            w.begin();
            t0 = System.currentTimeMillis();
            ax.start();
            ax.startConsumers(axConsumers, axBatch);
            long deadline = System.nanoTime() + Duration.ofSeconds(drainTimeout).toNanos();
            while (ax.completed() < r && System.nanoTime() < deadline) {
                Window.sleep(50);
            }
            w.end();
            out.put("consumerErrors", ax.consumerErrors());
            out.put("t0", Instant.ofEpochMilli(t0).toString());
        }
        w.afterStop();
        drainFigures(
                out,
                pg,
                db,
                r,
                t0,
                "SELECT " + pg.epochMillis("started_at") + " - " + t0 + ", " + pg.epochMillis("finished_at")
                        + " FROM ax_instance WHERE state = 'SUCCESS'");
        out.put("statesAtEnd", W1Systems.states(pg, db));
        out.putAll(w.costs(d(out, "drained") > 0 ? (long) d(out, "drained") : 0, pg.tableSizes(db, "ax_")));
        return out;
    }

    /** R READY runs, due now, spread over the tasks burst-0..burst-(K-1), each with its CREATED event: what RunStore.create writes. */
    static void bulkInsertAx(BenchDb db, String database, int tasks, int r) {
        String columns =
                "INSERT INTO ax_instance (task_id, task_name, task_version, cause, fire_key, scheduled_at, params,"
                        + " state, attempt, max_attempts, executor_group, ready_at, actor, node_id, created_at, updated_at)";
        String now = db.now();
        try (Connection c = db.connect(database)) {
            c.setAutoCommit(false);
            if (db instanceof Pg) {
                try (PreparedStatement ins = c.prepareStatement(
                        columns
                                + " SELECT t.id, t.name, 1, 'EVENT', 'event:bench-' || g, now(), NULL, 'READY', 0, 1, 'default', now(),"
                                + " 'bench', 'bench-node', now(), now() FROM generate_series(?, ?) g JOIN ax_task t ON t.name = 'burst-' || (g % ?)")) {
                    for (int from = 1; from <= r; from += 10_000) {
                        ins.setInt(1, from);
                        ins.setInt(2, Math.min(r, from + 9_999));
                        ins.setInt(3, tasks);
                        ins.executeUpdate();
                    }
                }
            } else {
                // No generate_series: one JDBC batch per 10,000 rows (the driver sends each batch at once).
                Map<Integer, Long> ids = new HashMap<>();
                try (Statement st = c.createStatement();
                        ResultSet rs = st.executeQuery("SELECT id, name FROM ax_task WHERE name LIKE 'burst-%'")) {
                    while (rs.next()) {
                        ids.put(Integer.parseInt(rs.getString(2).substring("burst-".length())), rs.getLong(1));
                    }
                }
                try (PreparedStatement ins = c.prepareStatement(
                        columns + " VALUES (?, ?, 1, 'EVENT', ?, " + now + ", NULL, 'READY', 0, 1, 'default', " + now
                                + ", 'bench', 'bench-node', " + now + ", " + now + ")")) {
                    for (int g = 1; g <= r; g++) {
                        int k = g % tasks;
                        ins.setLong(1, ids.get(k));
                        ins.setString(2, "burst-" + k);
                        ins.setString(3, "event:bench-" + g);
                        ins.addBatch();
                        if (g % 10_000 == 0 || g == r) {
                            ins.executeBatch();
                        }
                    }
                }
            }
            try (Statement st = c.createStatement()) {
                st.executeUpdate(
                        "INSERT INTO ax_event (instance_id, task_id, task_name, type, from_state, to_state, attempt, actor, node_id,"
                                + " at, message, data) SELECT id, task_id, task_name, 'CREATED', NULL, 'READY', attempt, 'bench', 'bench-node', "
                                + now + ", 'bulk-inserted by ax-bench', '{\"cause\":\"event\"}' FROM ax_instance");
            }
            c.commit();
        } catch (SQLException e) {
            throw new IllegalStateException("bulk insert: " + e.getMessage(), e);
        }
    }

    /** Lag and drain time from rows (lag ms, completed ms). */
    static void drainFigures(Map<String, Object> out, BenchDb pg, String db, int r, long t0, String sql) {
        Histogram lag = new Histogram(3_600_000L, 3);
        long last = Long.MIN_VALUE;
        long n = 0;
        try (Connection c = pg.connect(db);
                Statement st = c.createStatement();
                ResultSet rs = st.executeQuery(sql)) {
            while (rs.next()) {
                lag.recordValue(Math.clamp(rs.getLong(1), 0, 3_600_000L));
                last = Math.max(last, rs.getLong(2));
                n++;
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
        record(out, lag, n, r, t0, last);
    }

    static void record(Map<String, Object> out, Histogram lag, long n, int r, long dueMillis, long lastMillis) {
        out.put("runs", r);
        out.put("drained", n);
        out.put("complete", n >= r);
        double secs = n == 0 ? Double.NaN : Math.max(1, lastMillis - dueMillis) / 1000.0;
        out.put("drainSeconds", W1Stats.round(secs));
        out.put("drainRunsPerSecond", n == 0 ? Double.NaN : W1Stats.round(n / secs));
        out.put("lagP50Ms", n == 0 ? -1 : lag.getValueAtPercentile(50));
        out.put("lagP99Ms", n == 0 ? -1 : lag.getValueAtPercentile(99));
        out.put("lagMaxMs", n == 0 ? -1 : lag.getMaxValue());
    }
}
