package dev.ax.bench;

import dev.ax.server.AxServer;
import java.net.CookieManager;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Every console page of a running server, each requested in turn and timed by the server's own {@code Server-Timing}
 * header (handler start to rendered page); the time the client saw on loopback is kept beside it. Whatever filled the
 * store ({@code console}, {@code history}) names the task and runs the pages that need one look at.
 */
final class ConsolePages {
    static final double GOAL_MS = 200;
    private static final Pattern DUR = Pattern.compile("dur=([0-9.]+)");

    private ConsolePages() {}

    /** The task and runs the pages with a subject show: a task, its newest success, a run halfway through history. */
    record Subject(String task, long run, long middleRun) {
        /** {@code task} and runs of the store behind {@code s}. */
        static Subject of(Statement s, String task) throws SQLException {
            long taskId = HistorySeed.one(s, "SELECT id FROM ax_task WHERE name = '" + task + "'");
            return new Subject(
                    task,
                    HistorySeed.one(
                            s, "SELECT MAX(id) FROM ax_instance WHERE task_id = " + taskId + " AND state = 'SUCCESS'"),
                    HistorySeed.one(s, "SELECT (MIN(id) + MAX(id)) / 2 FROM ax_instance"));
        }
    }

    /** Logs in, then requests each page {@code requests} times after 3 warm-up requests; one result per page. */
    static List<Map<String, Object>> time(AxServer server, Subject subject, int requests) throws Exception {
        HttpClient http = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .cookieHandler(new CookieManager())
                .followRedirects(HttpClient.Redirect.NEVER)
                .connectTimeout(Duration.ofSeconds(5))
                .build();
        String base = server.url().toString();
        login(http, base);
        List<Map<String, Object>> results = new ArrayList<>();
        for (String[] page : pages(subject)) {
            results.add(measure(http, base, page[0], page[1], requests));
        }
        return results;
    }

    /** The page with the highest server time p95, or an empty map when none was timed. */
    static Map<String, Object> worst(List<Map<String, Object>> results) {
        return results.stream()
                .max((a, b) -> Double.compare(W2Command.d(a, "serverP95Ms"), W2Command.d(b, "serverP95Ms")))
                .orElse(Map.of());
    }

    static String ms(Map<String, Object> r, String key) {
        return Table.dec(W2Command.d(r, key), 1) + " ms";
    }

    /** The pages, as (label, path): every page of the console, and the runs list under each filter. */
    private static List<String[]> pages(Subject s) {
        String task = s.task();
        return List.of(
                new String[] {"dashboard", "/"},
                new String[] {"tasks", "/tasks"},
                new String[] {"tasks, search", "/tasks?q=" + task.substring(0, task.length() - 1)},
                new String[] {"task page", "/tasks/" + task},
                new String[] {"task editor", "/tasks/" + task + "/edit"},
                new String[] {"runs", "/runs"},
                new String[] {"runs, page deep in history", "/runs?before=" + s.middleRun()},
                new String[] {"runs, one task", "/runs?task=" + task},
                new String[] {"runs, failed", "/runs?state=FAILED"},
                new String[] {"runs, one task failed", "/runs?task=" + task + "&state=FAILED"},
                new String[] {"runs, backfill kind", "/runs?cause=BACKFILL"},
                new String[] {"runs, last hour", "/runs?since=1h"},
                new String[] {"runs, running", "/runs?state=RUNNING"},
                new String[] {"run page", "/runs/" + s.run()},
                new String[] {"executors", "/executors"},
                new String[] {"audit log", "/audit"},
                new String[] {"health", "/health"});
    }

    private static Map<String, Object> measure(HttpClient http, String base, String label, String path, int requests)
            throws Exception {
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
}
