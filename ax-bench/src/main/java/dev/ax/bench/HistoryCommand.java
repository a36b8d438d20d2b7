package dev.ax.bench;

import dev.ax.executor.ExecutorConfig;
import dev.ax.scheduler.HistoryRetention;
import dev.ax.scheduler.SchedulerConfig;
import dev.ax.server.AxServer;
import dev.ax.store.HistoryPartitions;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * W1 on a large history, with and without retention expiring part of it: W1 (AX's side, as {@code w1} runs it) on an
 * empty database, with what each run writes; then the same database filled in bulk SQL with finished runs of the same
 * tasks spread over {@code --history-days}; W1 on it with retention off; the console's pages on it; W1 on it with
 * retention expiring the runs older than {@code --retention-days}. All on one database of its own, dropped at the end.
 */
@Command(
        name = "history",
        description = "W1 N=1,000 on an empty database, then on 10,000,000 runs of history with retention off and on,"
                + " and the console on that history (PostgreSQL; long: 10-14 GB of database and a quarter"
                + " of an hour or more at the defaults)")
final class HistoryCommand implements Callable<Integer> {
    static final String DATABASE = "ax_bench_history";
    /** Retention "off": the longest period a server accepts, which no run of the history reaches. */
    static final Duration NEVER = Duration.ofDays(3650);

    @Mixin
    BenchOptions opts = new BenchOptions();

    @Option(
            names = "--tasks",
            defaultValue = "1000",
            description = "N, W1 tasks each due every second; the history is theirs (default ${DEFAULT-VALUE})")
    int tasks;

    @Option(
            names = "--history-runs",
            defaultValue = "10000000",
            description =
                    "finished runs loaded, each with 1 log chunk and the events a lean run keeps (default ${DEFAULT-VALUE})")
    long historyRuns;

    @Option(
            names = "--history-days",
            defaultValue = "100",
            description = "the history reaches this far back, evenly (default ${DEFAULT-VALUE})")
    int historyDays;

    @Option(
            names = "--chunk-runs",
            defaultValue = "1000000",
            description = "runs loaded per statement, so that the load shows its progress (default ${DEFAULT-VALUE})")
    long chunkRuns;

    @Option(
            names = "--retention-days",
            defaultValue = "90",
            description =
                    "runs period with retention on: the history older than this has expired (default ${DEFAULT-VALUE})")
    int retentionDays;

    @Option(
            names = "--retention-logs-days",
            defaultValue = "90",
            description = "output period with retention on; as long as the runs' by default, so that what the window"
                    + " deletes is expired runs (default ${DEFAULT-VALUE})")
    int retentionLogsDays;

    @Option(
            names = "--retention-every",
            defaultValue = "PT1S",
            description = "HistoryRetention every: the pause after a round that caught up (default ${DEFAULT-VALUE})")
    Duration retentionEvery;

    @Option(
            names = "--retention-per-tick",
            defaultValue = "20000",
            description = "HistoryRetention perTick: runs looked at per round; a round that used it all is followed"
                    + " at once by the next (default ${DEFAULT-VALUE})")
    int retentionPerTick;

    @Option(
            names = "--retention-batch",
            defaultValue = "500",
            description = "HistoryRetention batch: runs deleted per transaction (default ${DEFAULT-VALUE})")
    int retentionBatch;

    @Option(
            names = "--ax-consumers",
            defaultValue = "20",
            description = "AX no-op consumer (poll) threads, as in w1 (default ${DEFAULT-VALUE})")
    int axConsumers;

    @Option(names = "--ax-batch", defaultValue = "100", description = "runs per AX poll (default ${DEFAULT-VALUE})")
    int axBatch;

    @Option(
            names = "--ax-overflow",
            defaultValue = "ALLOW",
            description = "AX task policy.overflow, as in w1 (default ${DEFAULT-VALUE})")
    String axOverflow;

    @Option(
            names = "--requests",
            defaultValue = "20",
            description = "measured requests per console page (default ${DEFAULT-VALUE})")
    int requests;

    @Option(
            names = "--keep-database",
            description = "leave the database " + DATABASE + " in place afterwards (with the history, for EXPLAIN)")
    boolean keep;

    @Override
    public Integer call() {
        W1Command.Outcome o = run();
        System.out.println(o.table().render());
        System.out.println(Bar.table(o.bars()).render());
        return 0;
    }

    W1Command.Outcome run() {
        Pg pg = opts.pg();
        W1Systems.Settings s = new W1Systems.Settings(
                tasks,
                opts.warmup(),
                opts.measure(),
                axConsumers,
                axBatch,
                "DEFAULT".equalsIgnoreCase(axOverflow) ? null : axOverflow.toUpperCase(),
                0,
                0,
                0);
        HistoryRetention off = retention(NEVER, NEVER);
        HistoryRetention on = retention(Duration.ofDays(retentionDays), Duration.ofDays(retentionLogsDays));
        HistoryReport report = new HistoryReport(this, off, on);
        try {
            report.baseline = w1(
                    "W1, empty database",
                    pg,
                    s,
                    new W1Ax.Target(
                            DATABASE, false, SchedulerConfig.DEFAULT, ax -> List.of(new WriteCosts(pg, DATABASE))));
            report.seed = seed(pg, s);
            report.off = w1(
                    "W1, history, retention off",
                    pg,
                    s,
                    new W1Ax.Target(
                            DATABASE,
                            true,
                            SchedulerConfig.DEFAULT.withRetention(off),
                            ax -> List.of(new WriteCosts(pg, DATABASE))));
            // Before retention deletes any of it: the console on the history as loaded.
            report.pages = console(pg, off);
            // The retention-on window starts where the retention-off one did: right after a vacuum and a checkpoint.
            settle(pg, "VACUUM ANALYZE ax_instance, ax_event, ax_log, ax_task");
            report.on = w1(
                    "W1, history, retention on",
                    pg,
                    s,
                    new W1Ax.Target(
                            DATABASE,
                            true,
                            SchedulerConfig.DEFAULT.withRetention(on),
                            ax -> List.of(
                                    new WriteCosts(pg, DATABASE),
                                    new RetentionProbe(pg, DATABASE, ax.node.retention(), on.runs()))));
        } finally {
            if (!keep) {
                pg.drop(DATABASE);
            }
        }
        W1Command.Outcome o = report.outcome();
        Map<String, Object> options = opts.toMap();
        options.put("tasks", tasks);
        options.put("historyRuns", historyRuns);
        options.put("historyDays", historyDays);
        options.put("chunkRuns", chunkRuns);
        options.put("retentionOff", HistoryReport.describe(off));
        options.put("retentionOn", HistoryReport.describe(on));
        options.put("requests", requests);
        options.put("settings", s.toString());
        var file = Results.write(
                opts.resultsDir,
                "history-" + tasks,
                options,
                o.results(),
                o.table().render(),
                pg);
        System.err.println("results: " + file);
        return o;
    }

    private HistoryRetention retention(Duration runs, Duration logs) {
        return new HistoryRetention(runs, logs, retentionEvery, retentionBatch, retentionPerTick);
    }

    private Map<String, Object> w1(String step, Pg pg, W1Systems.Settings s, W1Ax.Target target) {
        System.err.printf("history: %s, N=%,d ...%n", step, tasks);
        opts.awaitQuiet();
        System.gc();
        Map<String, Object> res = new LinkedHashMap<>();
        res.put("step", step);
        res.put("retention", HistoryReport.describe(target.config().retention()));
        res.putAll(W1Ax.run(pg, s, target));
        System.err.printf(
                "  %s runs/s, lag p99 %s ms, %s row writes and %s B of WAL per run%n",
                res.get("runsPerSecond"),
                res.get("lagP99Ms"),
                res.get("rowWritesPerRun"),
                res.get("walBytesPerRunInWindow"));
        return res;
    }

    /**
     * The database again, with W1's tasks (through AX's own service, as {@code w1} creates them) and their history in
     * bulk SQL, a chunk of runs per statement; then vacuumed, analysed and checkpointed, as a database that has been
     * running for a while would be.
     */
    private Map<String, Object> seed(Pg pg, W1Systems.Settings s) {
        long start = System.nanoTime();
        try (AxHarness ax = AxHarness.open(pg, DATABASE, 6, SchedulerConfig.DEFAULT, true)) {
            W1Ax.createTasks(ax, s);
            // Output partitioned by day over the whole history, as on a database partitioned that long ago: the
            // first partition (empty here) gives way to the days.
            HistoryPartitions parts = ax.store.partitions();
            parts.drop("ax_log_legacy");
            LocalDate today = LocalDate.now(ZoneOffset.UTC);
            ax.store.tx(tx -> parts.makeDays(tx, today.minusDays(historyDays + 1), today.plusDays(1)));
        }
        HistorySeed history = new HistorySeed(historyRuns, Duration.ofDays(historyDays), Instant.now(), false);
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("step", "history loaded");
        try (Connection c = pg.connect(DATABASE);
                Statement st = c.createStatement()) {
            long statements = 0;
            for (long from = 1; from <= historyRuns; from += chunkRuns) {
                long to = Math.min(historyRuns, from + chunkRuns - 1);
                history.insert(st, from, to);
                statements++;
                System.err.printf(
                        "history: %,d of %,d runs loaded (with their events and output), %.0f s%n",
                        to, historyRuns, (System.nanoTime() - start) / 1e9);
            }
            long loaded = System.nanoTime();
            settle(pg, "VACUUM ANALYZE");
            out.put("runs", HistorySeed.one(st, "SELECT COUNT(*) FROM ax_instance"));
            out.put("events", HistorySeed.one(st, "SELECT COUNT(*) FROM ax_event"));
            out.put("logChunks", HistorySeed.one(st, "SELECT COUNT(*) FROM ax_log"));
            out.put("runEverySeconds", Math.round(history.spacingMillis()) / 1000.0);
            out.put("statements", statements);
            out.put("loadSeconds", Math.round((loaded - start) / 1e9));
            out.put("vacuumSeconds", Math.round((System.nanoTime() - loaded) / 1e9));
            out.put("databaseMB", HistorySeed.one(st, "SELECT pg_database_size(current_database()) / 1048576"));
        } catch (SQLException e) {
            throw new IllegalStateException("loading the history: " + e.getMessage(), e);
        }
        System.err.printf(
                "history: loaded in %s s, vacuumed and analysed in %s s; database %,d MB%n",
                out.get("loadSeconds"), out.get("vacuumSeconds"), out.get("databaseMB"));
        return out;
    }

    /** {@code vacuum}, then a checkpoint, so that the next window neither inherits dead rows nor a checkpoint's work. */
    private static void settle(Pg pg, String vacuum) {
        try (Connection c = pg.connect(DATABASE);
                Statement st = c.createStatement()) {
            st.execute(vacuum);
            st.execute("CHECKPOINT");
        } catch (SQLException e) {
            throw new IllegalStateException(vacuum + ": " + e.getMessage(), e);
        }
    }

    /**
     * Every console page on the history, from a full server on the database with retention off. W1's tasks are paused
     * (in SQL: no new versions or events) while it runs, so that the server, which has no executor, does not pile up
     * runs nobody takes; they are resumed for the next window.
     */
    private List<Map<String, Object>> console(Pg pg, HistoryRetention off) {
        System.err.println("history: console pages ...");
        Path dir = AxServers.tempDir("ax-bench-history");
        enable(pg, false);
        try (AxServer server = AxServers.open(
                pg,
                DATABASE,
                dir,
                false,
                ExecutorConfig.DEFAULT_CONCURRENCY,
                SchedulerConfig.DEFAULT.withRetention(off))) {
            ConsolePages.Subject subject;
            try (Connection c = pg.connect(DATABASE);
                    Statement st = c.createStatement()) {
                subject = ConsolePages.Subject.of(st, String.format("w1-%05d", tasks / 2));
            }
            opts.awaitQuiet();
            List<Map<String, Object>> pages = new ArrayList<>();
            for (Map<String, Object> page : ConsolePages.time(server, subject, requests)) {
                Map<String, Object> r = new LinkedHashMap<>();
                r.put("step", "console");
                r.putAll(page);
                pages.add(r);
            }
            return pages;
        } catch (Exception e) {
            throw new IllegalStateException("console on the history: " + e.getMessage(), e);
        } finally {
            AxServers.deleteTree(dir);
            enable(pg, true);
        }
    }

    private void enable(Pg pg, boolean enabled) {
        long n = pg.scalar(
                DATABASE,
                "WITH u AS (UPDATE ax_task SET enabled = " + enabled + " RETURNING 1) SELECT COUNT(*) FROM u");
        if (n != tasks) {
            throw new IllegalStateException("set enabled = " + enabled + " on " + n + " tasks, expected " + tasks);
        }
    }
}
