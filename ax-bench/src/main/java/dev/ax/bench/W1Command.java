package dev.ax.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(
        name = "w1",
        description =
                "W1 dense schedule: N recurring tasks each due every second, no-op body (AX, Quartz, db-scheduler)")
final class W1Command implements Callable<Integer> {
    @Mixin
    BenchOptions opts = new BenchOptions();

    @Option(
            names = "--tasks",
            defaultValue = "1000",
            description = "N, tasks each due every second (default ${DEFAULT-VALUE})")
    int tasks;

    @Option(
            names = "--systems",
            defaultValue = "ax,ax-mariadb,db-scheduler,quartz",
            description = "which systems: AX on PostgreSQL, AX on MariaDB, the anchors on PostgreSQL (default"
                    + " ${DEFAULT-VALUE})")
    String systems;

    @Option(
            names = "--repeat",
            defaultValue = "1",
            description = "runs per system; the table shows medians (default ${DEFAULT-VALUE})")
    int repeat;

    /** As many as the anchors' worker threads (--threads): each polls for up to --ax-batch runs and reports each from its own thread. */
    @Option(
            names = "--ax-consumers",
            defaultValue = "20",
            description = "AX no-op consumer (poll) threads (default ${DEFAULT-VALUE}," + " the anchors' --threads)")
    int axConsumers;

    @Option(
            names = "--ax-batch",
            defaultValue = "100",
            description = "runs per AX poll, at most 100 (default ${DEFAULT-VALUE})")
    int axBatch;

    @Option(
            names = "--ax-overflow",
            defaultValue = "ALLOW",
            description =
                    "AX task policy.overflow; DEFAULT keeps AX's default (maxConcurrency 1, QUEUE) (default ${DEFAULT-VALUE})")
    String axOverflow;

    @Option(
            names = "--threads",
            defaultValue = "20",
            description = "Quartz and db-scheduler worker threads (default ${DEFAULT-VALUE})")
    int threads;

    @Option(
            names = "--quartz-batch",
            defaultValue = "20",
            description = "Quartz batchTriggerAcquisitionMaxCount (default ${DEFAULT-VALUE})")
    int quartzBatch;

    @Option(
            names = "--dbs-poll-ms",
            defaultValue = "100",
            description = "db-scheduler pollingInterval in ms (default ${DEFAULT-VALUE})")
    long dbsPollMillis;

    @Override
    public Integer call() {
        Outcome o = run();
        System.out.println(o.table.render());
        System.out.println(Bar.table(o.bars).render());
        return 0;
    }

    record Outcome(Table table, List<Bar> bars, List<Map<String, Object>> results) {}

    Outcome run() {
        Pg pg = opts.pg();
        Set<String> which = opts.reachable(W1Systems.systems(systems));
        W1Systems.Settings s = new W1Systems.Settings(
                tasks,
                opts.warmup(),
                opts.measure(),
                axConsumers,
                axBatch,
                "DEFAULT".equalsIgnoreCase(axOverflow) ? null : axOverflow.toUpperCase(),
                threads,
                quartzBatch,
                dbsPollMillis);
        Map<String, List<Map<String, Object>>> bySystem = new LinkedHashMap<>();
        List<Map<String, Object>> all = new ArrayList<>();
        for (int r = 0; r < repeat; r++) {
            for (String sys : List.of("ax", "ax-mariadb", "db-scheduler", "quartz")) {
                if (!which.contains(sys)) {
                    continue;
                }
                System.err.printf("w1 N=%,d: %s, run %d of %d ...%n", tasks, sys, r + 1, repeat);
                opts.awaitQuiet();
                System.gc();
                Map<String, Object> res = switch (sys) {
                    case "ax" -> W1Ax.run(pg, s, W1Ax.Target.W1);
                    case "ax-mariadb" -> W1Ax.run(opts.mariadb(), s, W1Ax.Target.W1);
                    case "quartz" -> W1Systems.quartz(pg, s);
                    default -> W1Systems.dbScheduler(pg, s);
                };
                res.put("tasks", tasks);
                res.put("run", r + 1);
                System.err.printf(
                        "  %s: %s runs/s, lag p99 %s ms%n", sys, res.get("runsPerSecond"), res.get("lagP99Ms"));
                all.add(res);
                bySystem.computeIfAbsent((String) res.get("system"), k -> new ArrayList<>())
                        .add(res);
            }
        }
        Table t = new Table(
                String.format(
                        "W1 dense schedule, N = %,d tasks due every second, %d s measured after %d s warm-up%s",
                        tasks,
                        s.seconds(),
                        s.warmup(),
                        repeat > 1 ? ", medians of " + repeat + " runs" : ", single run"),
                "system",
                "runs/s",
                "demand",
                "lag p50",
                "lag p99",
                "lag max",
                "dup",
                "missed",
                "JVM CPU",
                "DB CPU",
                "commits/run",
                "WAL/run",
                "tables",
                "load");
        Map<String, Double> rate = new LinkedHashMap<>();
        Map<String, Double> p99 = new LinkedHashMap<>();
        for (var e : bySystem.entrySet()) {
            List<Map<String, Object>> rs = e.getValue();
            double runsPerSecond = med(rs, "runsPerSecond");
            double lag99 = med(rs, "lagP99Ms");
            rate.put(e.getKey(), runsPerSecond);
            p99.put(e.getKey(), lag99);
            t.row(
                    e.getKey(),
                    Table.num(runsPerSecond),
                    Table.num(tasks),
                    Table.ms(med(rs, "lagP50Ms")),
                    Table.ms(lag99),
                    Table.ms(med(rs, "lagMaxMs")),
                    Table.num(med(rs, "duplicates")),
                    Table.num(med(rs, "missedSlots")),
                    Table.cores(med(rs, "jvmCpuCores")),
                    Table.cores(med(rs, "postgresCpuCores")),
                    Table.dec(med(rs, "dbCommitsPerRun"), 2),
                    Table.num(med(rs, "walBytesPerRun")) + " B",
                    Table.mb(med(rs, "tableBytesTotal")),
                    Table.dec(med(rs, "loadAverageAtStart"), 1));
        }
        double ax = rate.getOrDefault("AX", Double.NaN);
        t.note(
                "runs/s: runs started inside the window; lag = start - scheduled slot, where a run starts when its job body begins"
                        + " (AX: when a consumer gets it from its claim; Quartz and db-scheduler: when their job runs); missed = slots in the window with no run started by its end + "
                        + W1Systems.GRACE_MILLIS / 1000
                        + " s (for AX, the notes below say how many still had none once it had caught up);"
                        + " JVM/DB CPU in cores (DB = all postgres processes on this box; mariadbd for AX on MariaDB).");
        t.note(
                "load: the machine's 1-minute load average when the window began (2 cores; other work on the box shows here).");
        t.note(
                "commits/run, WAL/run: pg_stat_database and WAL position, window start to the system's stop (AX: to the window's end + "
                        + W1Systems.GRACE_MILLIS / 1000
                        + " s, after which it runs on only for the window's last slots), per run started in that span;"
                        + " for AX on MariaDB the server's COMMITs and InnoDB redo log (Innodb_lsn_current).");
        t.note("runs/s AX / Quartz = " + Table.ratio(ax, rate.getOrDefault("Quartz", Double.NaN))
                + ", AX / db-scheduler = " + Table.ratio(ax, rate.getOrDefault("db-scheduler", Double.NaN))
                + "; lag p99 AX / Quartz = "
                + Table.ratio(p99.getOrDefault("AX", Double.NaN), p99.getOrDefault("Quartz", Double.NaN))
                + ", AX / db-scheduler = "
                + Table.ratio(p99.getOrDefault("AX", Double.NaN), p99.getOrDefault("db-scheduler", Double.NaN))
                + " (lag: lower is better)");
        for (Map<String, Object> res : axRuns(bySystem)) {
            @SuppressWarnings("unchecked")
            Map<String, Object> later = (Map<String, Object>) res.get("windowSlotsLater");
            t.note(res.get("system") + " run " + res.get("run") + ": " + res.get("lagBreakdown") + "; of the window's "
                    + Table.num(W2Command.d(later, "slots"))
                    + " slots, " + Table.num(W2Command.d(later, "notStarted")) + " had no started run "
                    + later.get("secondsAfterWindow") + " s after it (AX kept running up to "
                    + (W1Systems.GRACE_MILLIS + W1Ax.CATCH_UP_MILLIS) / 1000
                    + " s after the window for them); states at end " + res.get("statesAtEnd"));
        }
        Map<String, Object> options = opts.toMap();
        options.put("tasks", tasks);
        options.put("repeat", repeat);
        options.put("settings", s.toString());
        var file = Results.write(opts.resultsDir, "w1-" + tasks, options, all, t.render(), pg);
        System.err.println("results: " + file);

        List<Bar> bars = new ArrayList<>();
        double lag99 = p99.getOrDefault("AX", Double.NaN);
        long goalLag = tasks <= 1000 ? 20 : 100;
        boolean hundredPercent = ax >= tasks * 0.99;
        String goal = "100 % of demand, lag p99 <= " + goalLag + " ms" + (tasks > 1000 ? ", >= 2x db-scheduler" : "");
        boolean met = hundredPercent
                && lag99 <= goalLag
                && (tasks <= 1000 || ax >= 2 * rate.getOrDefault("db-scheduler", 0.0));
        bars.add(new Bar(
                String.format("W1 N=%,d runs/s", tasks),
                goal,
                Table.num(ax) + " (" + Table.num(100.0 * ax / tasks) + " %)",
                Table.num(rate.getOrDefault("Quartz", Double.NaN)),
                Table.num(rate.getOrDefault("db-scheduler", Double.NaN)),
                Table.ratio(ax, rate.getOrDefault("Quartz", Double.NaN)),
                Table.ratio(ax, rate.getOrDefault("db-scheduler", Double.NaN)),
                which.contains("ax") ? Bar.yes(met) : "n/a"));
        bars.add(new Bar(
                String.format("W1 N=%,d lag p99", tasks),
                "<= " + goalLag + " ms",
                Table.ms(lag99),
                Table.ms(p99.getOrDefault("Quartz", Double.NaN)),
                Table.ms(p99.getOrDefault("db-scheduler", Double.NaN)),
                Table.ratio(lag99, p99.getOrDefault("Quartz", Double.NaN)),
                Table.ratio(lag99, p99.getOrDefault("db-scheduler", Double.NaN)),
                which.contains("ax") ? Bar.yes(lag99 <= goalLag) : "n/a"));
        if (rate.containsKey("AX on MariaDB")) {
            bars.add(mariadbBar(
                    String.format("MariaDB store, W1 N=%,d", tasks),
                    rate.get("AX on MariaDB"),
                    p99.get("AX on MariaDB"),
                    ax,
                    lag99));
        }
        return new Outcome(t, bars, all);
    }

    /** AX on PostgreSQL's runs first, then on MariaDB's: their notes, in that order. */
    private static List<Map<String, Object>> axRuns(Map<String, List<Map<String, Object>>> bySystem) {
        List<Map<String, Object>> runs = new ArrayList<>(bySystem.getOrDefault("AX", List.of()));
        runs.addAll(bySystem.getOrDefault("AX on MariaDB", List.of()));
        return runs;
    }

    /**
     * AX on MariaDB against AX on PostgreSQL in the same run: within 1.5x, its rate at least two thirds of
     * PostgreSQL's and its lag p99 at most 1.5 times PostgreSQL's.
     */
    static Bar mariadbBar(String workload, double rate, double lagP99, double pgRate, double pgLagP99) {
        return mariadbBar(workload, rate, lagP99, pgRate, pgLagP99, "");
    }

    /** {@code floor}: what bounds the figure, measured in the same run, appended to AX's column ("" for none). */
    static Bar mariadbBar(String workload, double rate, double lagP99, double pgRate, double pgLagP99, String floor) {
        boolean met = rate * 1.5 >= pgRate && lagP99 <= 1.5 * pgLagP99;
        return new Bar(
                workload,
                "within 1.5x of AX on PostgreSQL, same run",
                Table.num(rate) + " runs/s, lag p99 " + Table.ms(lagP99) + " (PostgreSQL: " + Table.num(pgRate)
                        + " runs/s, " + Table.ms(pgLagP99) + "; runs/s " + Table.ratio(rate, pgRate) + ", p99 "
                        + Table.ratio(lagP99, pgLagP99) + floor + ")",
                "-",
                "-",
                "-",
                "-",
                Double.isNaN(pgRate) ? "n/a" : Bar.yes(met));
    }

    static double med(List<Map<String, Object>> rs, String key) {
        return Table.median(rs.stream()
                .mapToDouble(m -> m.get(key) instanceof Number n ? n.doubleValue() : Double.NaN)
                .toArray());
    }
}
