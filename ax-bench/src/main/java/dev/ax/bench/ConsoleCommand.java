package dev.ax.bench;

import dev.ax.server.AxServer;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * Console pages on a large store: a full AxServer on PostgreSQL holding {@code --tasks} tasks
 * and {@code --runs} runs (each run with its events and a log chunk, spread over the last week
 * the way a fleet of cron jobs would leave them), then every page requested in turn
 * ({@link ConsolePages}). The figure is the server's own time from the {@code Server-Timing}
 * header the console writes; the time the client saw on loopback is printed beside it.
 */
@Command(
        name = "console",
        description = "Console pages with 10,000 tasks and 1,000,000 runs in PostgreSQL: server time per page")
final class ConsoleCommand implements Callable<Integer> {
    static final String DATABASE = "ax_bench_console";

    @Mixin
    BenchOptions opts = new BenchOptions();

    @Option(names = "--tasks", defaultValue = "10000", description = "tasks stored (default ${DEFAULT-VALUE})")
    int tasks;

    @Option(names = "--runs", defaultValue = "1000000", description = "runs stored (default ${DEFAULT-VALUE})")
    int runs;

    @Option(
            names = "--requests",
            defaultValue = "20",
            description = "measured requests per page (default ${DEFAULT-VALUE})")
    int requests;

    @Option(
            names = "--keep-database",
            description = "leave the database " + DATABASE + " in place afterwards (for EXPLAIN ANALYZE)")
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
        Path dir = AxServers.tempDir("ax-bench-console");
        List<Map<String, Object>> results = new ArrayList<>();
        Table t = new Table(
                "Console pages, " + Table.num(tasks) + " tasks and " + Table.num(runs) + " runs in PostgreSQL, "
                        + requests + " requests per page after 3 warm-up ones",
                "page",
                "server p50",
                "server p95",
                "server max",
                "client p50",
                "bytes");
        Map<String, Object> seed = new LinkedHashMap<>();
        try (AxServer server = AxServers.start(pg, DATABASE, dir, false)) {
            ConsolePages.Subject subject = seed(pg, server, seed);
            opts.awaitQuiet();
            results.addAll(ConsolePages.time(server, subject, requests));
            for (Map<String, Object> r : results) {
                t.row(
                        r.get("page"),
                        ConsolePages.ms(r, "serverP50Ms"),
                        ConsolePages.ms(r, "serverP95Ms"),
                        ConsolePages.ms(r, "serverMaxMs"),
                        ConsolePages.ms(r, "clientP50Ms"),
                        Table.num(W2Command.d(r, "bytes")));
            }
        } catch (Exception e) {
            throw new IllegalStateException("console workload: " + e.getMessage(), e);
        } finally {
            AxServers.deleteTree(dir);
            if (!keep) {
                pg.drop(DATABASE);
            }
        }
        t.note(
                "server = the Server-Timing header (handler start to rendered page); client = request to last byte on loopback.");
        t.note("store: " + seed);
        Map<String, Object> options = opts.toMap();
        options.put("tasks", tasks);
        options.put("runs", runs);
        options.put("requests", requests);
        System.err.println("results: " + Results.write(opts.resultsDir, "console", options, results, t.render(), pg));
        Map<String, Object> slowest = ConsolePages.worst(results);
        double worst = slowest.isEmpty() ? -1 : W2Command.d(slowest, "serverP95Ms");
        List<Bar> bars = List.of(new Bar(
                "console pages (" + Table.num(tasks) + " tasks, " + Table.num(runs) + " runs)",
                "<= 200 ms server time",
                "worst p95 " + Table.dec(worst, 1) + " ms (" + slowest.getOrDefault("page", "-") + ")",
                "-",
                "-",
                "-",
                "-",
                Bar.yes(worst >= 0 && worst <= ConsolePages.GOAL_MS)));
        return new W1Command.Outcome(t, bars, results);
    }

    /**
     * Fills the store. Ten tasks go through AX's own service (real definitions and versions); the
     * rest are copies made in SQL, and the runs, events and logs are written in bulk ({@link HistorySeed}) over
     * the last week, the newest few still running. Adds what it wrote and how long it took to {@code out}.
     */
    private ConsolePages.Subject seed(Pg pg, AxServer server, Map<String, Object> out) throws SQLException {
        long start = System.nanoTime();
        for (int i = 0; i < 10; i++) {
            server.node()
                    .tasks()
                    .create(
                            AxHarness.task(
                                    "tpl-" + i, Map.of("type", "cron", "expression", (i * 5) + " 2 * * *"), null),
                            "bench");
        }
        ConsolePages.Subject subject;
        try (Connection c = pg.connect(DATABASE);
                Statement s = c.createStatement()) {
            s.execute(
                    "INSERT INTO ax_task (name, version, definition, trigger_type, executor_group, enabled, next_fire_at,"
                            + " created_at, created_by, updated_at, updated_by)"
                            + " SELECT 'job_' || lpad(g::text, 5, '0'), 1, replace(t.definition, '\"tpl-' || (g % 10) || '\"',"
                            + " '\"job_' || lpad(g::text, 5, '0') || '\"'), t.trigger_type, t.executor_group, g % 17 <> 0,"
                            + " t.next_fire_at + (g % 1440) * interval '1 minute', now() - (g % 30) * interval '1 day', 'bench',"
                            + " now() - (g % 30) * interval '1 day', 'bench'"
                            + " FROM generate_series(1, " + (tasks - 10)
                            + ") g JOIN ax_task t ON t.name = 'tpl-' || (g % 10)");
            s.execute(
                    "INSERT INTO ax_task_version (task_id, version, task_name, change, definition, diff, actor, created_at)"
                            + " SELECT id, 1, name, 'CREATE', definition, NULL, 'bench', created_at FROM ax_task WHERE name LIKE 'job\\_%'");
            // A third of the tasks were edited once: a second version with its diff.
            s.execute(
                    "UPDATE ax_task SET version = 2, updated_at = created_at + interval '1 hour' WHERE name LIKE 'job\\_%' AND id % 3 = 0");
            s.execute(
                    "INSERT INTO ax_task_version (task_id, version, task_name, change, definition, diff, actor, created_at)"
                            + " SELECT id, 2, name, 'UPDATE', definition, '[{\"path\":\"policy.timeoutSeconds\",\"from\":3600,\"to\":600}]',"
                            + " 'olga', updated_at FROM ax_task WHERE version = 2");
            long runsStart = System.nanoTime();
            new HistorySeed(runs, Duration.ofDays(7), Instant.now(), true).insert(s, 1, runs);
            // The newest few are still running or waiting, as on a live system.
            s.execute(
                    "UPDATE ax_instance SET state = 'RUNNING', finished_at = NULL, exit_code = NULL, failure_kind = NULL,"
                            + " message = NULL, lease_expires_at = now() + interval '1 minute'"
                            + " WHERE id > (SELECT MAX(id) FROM ax_instance) - 40");
            s.execute("INSERT INTO ax_executor (id, session, host, pid, version, started_at, last_seen_at)"
                    + " SELECT 'bench-executor-' || g, 's' || g, 'host-' || g, 4000 + g, 'bench', now() - interval '1 day', now()"
                    + " FROM generate_series(0, 19) g");
            s.execute("INSERT INTO ax_executor_group (executor_id, group_name) SELECT id, 'default' FROM ax_executor");
            long analyzeStart = System.nanoTime();
            s.execute("VACUUM ANALYZE");
            out.put("tasks", HistorySeed.one(s, "SELECT COUNT(*) FROM ax_task"));
            out.put("runs", HistorySeed.one(s, "SELECT COUNT(*) FROM ax_instance"));
            out.put("events", HistorySeed.one(s, "SELECT COUNT(*) FROM ax_event"));
            out.put("logChunks", HistorySeed.one(s, "SELECT COUNT(*) FROM ax_log"));
            out.put("databaseMB", HistorySeed.one(s, "SELECT pg_database_size(current_database()) / 1048576"));
            out.put("seedSeconds", Math.round((analyzeStart - start) / 1e9));
            out.put("vacuumSeconds", Math.round((System.nanoTime() - analyzeStart) / 1e9));
            out.put("runsSeedSeconds", Math.round((analyzeStart - runsStart) / 1e9));
            subject = ConsolePages.Subject.of(s, String.format("job_%05d", tasks / 2 + 7));
            out.put("subject", subject.toString());
        }
        System.err.println("console: store filled " + out);
        return subject;
    }
}
