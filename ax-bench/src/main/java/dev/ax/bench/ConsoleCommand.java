package dev.ax.bench;

import dev.ax.server.AxServer;
import java.net.CookieManager;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * Console pages on a large store: a full AxServer on PostgreSQL holding {@code --tasks} tasks
 * and {@code --runs} runs (each run with its events and a log chunk, spread over the last week
 * the way a fleet of cron jobs would leave them), then every page requested in turn. The figure
 * is the server's own time from the {@code Server-Timing} header the console writes; the time
 * the client saw on loopback is printed beside it.
 */
@Command(
        name = "console",
        description = "Console pages with 10,000 tasks and 1,000,000 runs in PostgreSQL: server time per page")
final class ConsoleCommand implements Callable<Integer> {
    static final String DATABASE = "ax_bench_console";
    static final double GOAL_MS = 200;
    private static final Pattern DUR = Pattern.compile("dur=([0-9.]+)");

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
            seed = seed(pg, server);
            opts.awaitQuiet();
            HttpClient http = HttpClient.newBuilder()
                    .version(HttpClient.Version.HTTP_1_1)
                    .cookieHandler(new CookieManager())
                    .followRedirects(HttpClient.Redirect.NEVER)
                    .connectTimeout(Duration.ofSeconds(5))
                    .build();
            login(http, server.url().toString());
            for (String[] page : pages(seed)) {
                Map<String, Object> r = measure(http, server.url().toString(), page[0], page[1]);
                results.add(r);
                t.row(
                        page[0],
                        ms(r, "serverP50Ms"),
                        ms(r, "serverP95Ms"),
                        ms(r, "serverMaxMs"),
                        ms(r, "clientP50Ms"),
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
        double worst = results.stream()
                .mapToDouble(r -> W2Command.d(r, "serverP95Ms"))
                .max()
                .orElse(-1);
        String slowest = results.stream()
                .max((a, b) -> Double.compare(W2Command.d(a, "serverP95Ms"), W2Command.d(b, "serverP95Ms")))
                .map(r -> (String) r.get("page"))
                .orElse("-");
        List<Bar> bars = List.of(new Bar(
                "console pages (" + Table.num(tasks) + " tasks, " + Table.num(runs) + " runs)",
                "<= 200 ms server time",
                "worst p95 " + Table.dec(worst, 1) + " ms (" + slowest + ")",
                "-",
                "-",
                "-",
                "-",
                Bar.yes(worst >= 0 && worst <= GOAL_MS)));
        return new W1Command.Outcome(t, bars, results);
    }

    /** The pages, as (label, path): every page of the console, and the runs list under each filter. */
    private List<String[]> pages(Map<String, Object> seed) {
        String task = (String) seed.get("sampleTask");
        long run = ((Number) seed.get("sampleRun")).longValue();
        long middle = ((Number) seed.get("middleRun")).longValue();
        return List.of(
                new String[] {"dashboard", "/"},
                new String[] {"tasks", "/tasks"},
                new String[] {"tasks, search", "/tasks?q=" + task.substring(0, task.length() - 1)},
                new String[] {"task page", "/tasks/" + task},
                new String[] {"task editor", "/tasks/" + task + "/edit"},
                new String[] {"runs", "/runs"},
                new String[] {"runs, page deep in history", "/runs?before=" + middle},
                new String[] {"runs, one task", "/runs?task=" + task},
                new String[] {"runs, failed", "/runs?state=FAILED"},
                new String[] {"runs, one task failed", "/runs?task=" + task + "&state=FAILED"},
                new String[] {"runs, backfill kind", "/runs?cause=BACKFILL"},
                new String[] {"runs, last hour", "/runs?since=1h"},
                new String[] {"runs, running", "/runs?state=RUNNING"},
                new String[] {"run page", "/runs/" + run},
                new String[] {"executors", "/executors"},
                new String[] {"audit log", "/audit"},
                new String[] {"health", "/health"});
    }

    private Map<String, Object> measure(HttpClient http, String base, String label, String path) throws Exception {
        HttpRequest req = HttpRequest.newBuilder(URI.create(base + path))
                .timeout(Duration.ofSeconds(60))
                .GET()
                .build();
        double[] server = new double[requests];
        double[] client = new double[requests];
        long bytes = 0;
        for (int i = -3; i < requests; i++) {
            long s = System.nanoTime();
            HttpResponse<String> resp = http.send(req, HttpResponse.BodyHandlers.ofString());
            long e = System.nanoTime();
            if (resp.statusCode() != 200) {
                throw new IllegalStateException(path + " answered " + resp.statusCode() + ": "
                        + resp.body().substring(0, Math.min(300, resp.body().length())));
            }
            if (i < 0) {
                continue;
            }
            Matcher m = DUR.matcher(resp.headers().firstValue("Server-Timing").orElse(""));
            if (!m.find()) {
                throw new IllegalStateException(path + " has no Server-Timing header");
            }
            server[i] = Double.parseDouble(m.group(1));
            client[i] = (e - s) / 1e6;
            bytes = resp.body().getBytes(StandardCharsets.UTF_8).length;
        }
        Arrays.sort(server);
        Arrays.sort(client);
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("page", label);
        r.put("path", path);
        r.put("serverP50Ms", pct(server, 50));
        r.put("serverP95Ms", pct(server, 95));
        r.put("serverMaxMs", server[server.length - 1]);
        r.put("clientP50Ms", pct(client, 50));
        r.put("bytes", bytes);
        return r;
    }

    private static double pct(double[] sorted, int p) {
        int i = (int) Math.ceil(p / 100.0 * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, i))];
    }

    private static String ms(Map<String, Object> r, String key) {
        return Table.dec(W2Command.d(r, key), 1) + " ms";
    }

    private static void login(HttpClient http, String base) throws Exception {
        HttpRequest req = HttpRequest.newBuilder(URI.create(base + "/login"))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(
                        "token=" + URLEncoder.encode(AxServers.TOKEN, StandardCharsets.UTF_8)))
                .build();
        HttpResponse<String> resp = http.send(req, HttpResponse.BodyHandlers.ofString());
        if (resp.statusCode() != 303) {
            throw new IllegalStateException("console login answered " + resp.statusCode());
        }
    }

    /**
     * Fills the store. Ten tasks go through AX's own service (real definitions and versions); the
     * rest are copies made in SQL, and the runs, events and logs are written in bulk with shapes
     * the scheduler would leave: one run every {@code 7 days / runs}, 2.5 % failed, some manual
     * and backfill runs, a few still running, three events and one log chunk per run.
     */
    private Map<String, Object> seed(Pg pg, AxServer server) throws SQLException {
        long start = System.nanoTime();
        for (int i = 0; i < 10; i++) {
            server.node()
                    .tasks()
                    .create(
                            AxHarness.task(
                                    "tpl-" + i, Map.of("type", "cron", "expression", (i * 5) + " 2 * * *"), null),
                            "bench");
        }
        Map<String, Object> out = new LinkedHashMap<>();
        try (Connection c = pg.connect(DATABASE);
                Statement s = c.createStatement()) {
            long firstId = one(s, "SELECT MIN(id) FROM ax_task");
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
            double spacingMs = Duration.ofDays(7).toMillis() / (double) runs;
            s.execute(
                    "INSERT INTO ax_instance (task_id, task_name, task_version, cause, fire_key, scheduled_at, state, attempt,"
                            + " max_attempts, executor_group, ready_at, executor_id, pid, exit_code, failure_kind, message, actor, node_id,"
                            + " request_id, created_at, started_at, finished_at, updated_at)"
                            + " SELECT t.id, t.name, 1, CASE WHEN g % 50 = 0 THEN 'MANUAL' WHEN g % 997 = 0 THEN 'BACKFILL' ELSE 'CRON' END,"
                            // A scheduled run is keyed by its slot, ISO-8601 as Firing.fireKey writes it (the audit
                            // finds them by it).
                            + " CASE WHEN g % 50 = 0 OR g % 997 = 0 THEN 'b:' || g ELSE to_char(x.at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"') END,"
                            + " x.at, CASE WHEN g % 40 = 0 THEN 'FAILED' ELSE 'SUCCESS' END, 1, 1, 'default', x.at,"
                            + " 'bench-executor-' || (g % 20), 1000 + g % 30000, CASE WHEN g % 40 = 0 THEN 1 ELSE 0 END,"
                            + " CASE WHEN g % 40 = 0 THEN 'EXIT_CODE' END, CASE WHEN g % 40 = 0 THEN 'exited with code 1' END,"
                            + " 'scheduler', 'bench', 'req-' || g, x.at + interval '4 ms', x.at + interval '15 ms', x.at + interval '2 s',"
                            + " x.at + interval '2 s'"
                            + " FROM generate_series(1, " + runs + ") g"
                            + " CROSS JOIN LATERAL (SELECT now() - (" + runs + " - g) * interval '" + spacingMs
                            + " milliseconds' AS at) x"
                            + " JOIN ax_task t ON t.id = " + firstId + " + g % " + tasks);
            // The newest few are still running or waiting, as on a live system.
            s.execute(
                    "UPDATE ax_instance SET state = 'RUNNING', finished_at = NULL, exit_code = NULL, failure_kind = NULL,"
                            + " message = NULL, lease_expires_at = now() + interval '1 minute'"
                            + " WHERE id > (SELECT MAX(id) FROM ax_instance) - 40");
            s.execute(
                    "INSERT INTO ax_event (instance_id, task_id, task_name, type, from_state, to_state, attempt, actor, node_id, at, message)"
                            + " SELECT i.id, i.task_id, i.task_name, e.type, e.from_state, e.to_state, 1, 'scheduler', 'bench',"
                            + " i.created_at + e.n * interval '5 ms', NULL"
                            + " FROM ax_instance i CROSS JOIN (VALUES (0, 'CREATED', NULL, 'READY'), (1, 'CLAIMED', 'READY', 'RUNNING'),"
                            + " (2, 'SUCCEEDED', 'RUNNING', 'SUCCESS')) AS e(n, type, from_state, to_state)");
            // A live server's alert tail is caught up; a bulk load is not something it should replay.
            s.execute("UPDATE ax_alert_cursor SET last_event_id = (SELECT MAX(id) FROM ax_event) WHERE id = 1");
            s.execute("INSERT INTO ax_log (instance_id, attempt, stream, at, text)"
                    + " SELECT id, 1, 'stdout', started_at, 'report for ' || to_char(scheduled_at, 'YYYY-MM-DD') || E'\\nrows written: '"
                    + " || (id % 1000) || E'\\n' FROM ax_instance");
            s.execute("INSERT INTO ax_executor (id, session, host, pid, version, started_at, last_seen_at)"
                    + " SELECT 'bench-executor-' || g, 's' || g, 'host-' || g, 4000 + g, 'bench', now() - interval '1 day', now()"
                    + " FROM generate_series(0, 19) g");
            s.execute("INSERT INTO ax_executor_group (executor_id, group_name) SELECT id, 'default' FROM ax_executor");
            long analyzeStart = System.nanoTime();
            s.execute("VACUUM ANALYZE");
            out.put("tasks", one(s, "SELECT COUNT(*) FROM ax_task"));
            out.put("runs", one(s, "SELECT COUNT(*) FROM ax_instance"));
            out.put("events", one(s, "SELECT COUNT(*) FROM ax_event"));
            out.put("logChunks", one(s, "SELECT COUNT(*) FROM ax_log"));
            out.put("databaseMB", one(s, "SELECT pg_database_size(current_database()) / 1048576"));
            out.put("seedSeconds", Math.round((analyzeStart - start) / 1e9));
            out.put("vacuumSeconds", Math.round((System.nanoTime() - analyzeStart) / 1e9));
            out.put("runsSeedSeconds", Math.round((analyzeStart - runsStart) / 1e9));
            String sample = String.format("job_%05d", tasks / 2 + 7);
            out.put("sampleTask", sample);
            long sampleTaskId = one(s, "SELECT id FROM ax_task WHERE name = '" + sample + "'");
            out.put(
                    "sampleRun",
                    one(
                            s,
                            "SELECT MAX(id) FROM ax_instance WHERE task_id = " + sampleTaskId
                                    + " AND state = 'SUCCESS'"));
            out.put("middleRun", one(s, "SELECT (MIN(id) + MAX(id)) / 2 FROM ax_instance"));
        }
        System.err.println("console: store filled " + out);
        return out;
    }

    private static long one(Statement s, String sql) throws SQLException {
        try (ResultSet r = s.executeQuery(sql)) {
            r.next();
            return r.getLong(1);
        }
    }
}
