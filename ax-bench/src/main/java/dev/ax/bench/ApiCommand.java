package dev.ax.bench;

import dev.ax.server.AxServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.Histogram;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code POST /api/trigger} against a full AxServer on loopback: C clients on virtual threads,
 * each sending its next request as soon as the previous one is answered (closed loop). The
 * server runs no executor, so the figure is the API and the insert path alone; the runs created
 * stay READY.
 */
@Command(name = "api", description = "POST /api/trigger on AxServer (H2 and PostgreSQL): requests/s and latency")
final class ApiCommand implements Callable<Integer> {
    @Mixin
    BenchOptions opts = new BenchOptions();

    @Option(names = "--clients", defaultValue = "32", description = "concurrent clients (default ${DEFAULT-VALUE})")
    int clients;

    @Option(names = "--dbs", defaultValue = "h2,pg", description = "h2 and/or pg (default ${DEFAULT-VALUE})")
    String dbs;

    @Option(names = "--event-tasks", defaultValue = "1", description = "event tasks the requests are spread over (default ${DEFAULT-VALUE})")
    int eventTasks;

    @Override
    public Integer call() {
        W1Command.Outcome o = run();
        System.out.println(o.table().render());
        System.out.println(Bar.table(o.bars()).render());
        return 0;
    }

    W1Command.Outcome run() {
        Pg pg = opts.pg();
        List<Map<String, Object>> results = new ArrayList<>();
        Table t = new Table("POST /api/trigger, " + clients + " clients on loopback, " + eventTasks + " event task(s), "
                + opts.measure() + " s measured after " + opts.warmup() + " s warm-up, single run",
                "database", "requests/s", "p50", "p99", "max", "errors", "JVM CPU", "PG CPU", "load");
        boolean baseline = true;
        for (String d : Pg.split(dbs)) {
            System.err.println("api: " + d + " ...");
            opts.awaitQuiet();
            System.gc();
            for (Map<String, Object> r : one(pg, d.equalsIgnoreCase("h2"), baseline)) {
                results.add(r);
                t.row(r.get("database"), Table.num(W2Command.d(r, "requestsPerSecond")), Table.dec(W2Command.d(r, "p50Ms"), 1) + " ms",
                        Table.dec(W2Command.d(r, "p99Ms"), 1) + " ms", Table.dec(W2Command.d(r, "maxMs"), 1) + " ms",
                        Table.num(W2Command.d(r, "errors")), Table.cores(W2Command.d(r, "jvmCpuCores")),
                        Table.cores(W2Command.d(r, "postgresCpuCores")), Table.dec(W2Command.d(r, "loadAverageAtStart"), 1));
            }
            baseline = false;
        }
        t.note("Client and server share this machine's cores (the JVM CPU is both). No executor runs: the runs created stay READY."
                + " The first row is the ceiling of the HTTP stack on this box: the same server, clients and token, a route"
                + " that answers without the database.");
        Map<String, Object> options = opts.toMap();
        options.put("clients", clients);
        options.put("eventTasks", eventTasks);
        System.err.println("results: " + Results.write(opts.resultsDir, "api", options, results, t.render(), pg));
        List<Bar> bars = new ArrayList<>();
        String ceiling = results.stream().filter(r -> NO_DATABASE.equals(r.get("database"))).findFirst()
                .map(r -> " (the same server without the database: " + Table.num(W2Command.d(r, "requestsPerSecond")) + " req/s)")
                .orElse("");
        for (Map<String, Object> r : results) {
            if (NO_DATABASE.equals(r.get("database"))) {
                continue;
            }
            double rps = W2Command.d(r, "requestsPerSecond");
            double p99 = W2Command.d(r, "p99Ms");
            bars.add(new Bar("API POST /api/trigger (" + r.get("database") + ")", ">= 5,000 req/s, p99 <= 20 ms",
                    Table.num(rps) + " req/s, p99 " + Table.dec(p99, 1) + " ms" + ceiling, "-", "-", "-", "-",
                    Bar.yes(rps >= 5000 && p99 <= 20)));
        }
        return new W1Command.Outcome(t, bars, results);
    }

    /**
     * One database: an AxServer on it, the trigger load, and (with {@code baseline}) first the same clients against
     * a route of the same server that never touches the database, for the ceiling of this box's HTTP stack.
     */
    List<Map<String, Object>> one(Pg pg, boolean h2, boolean baseline) {
        List<Map<String, Object>> rows = new ArrayList<>();
        Path dir = AxServers.tempDir("ax-bench-api");
        try (AxServer server = AxServers.start(pg, h2 ? null : "ax_bench", dir, false);
             ExecutorService vthreads = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int i = 0; i < eventTasks; i++) {
                server.node().tasks().create(AxHarness.task("api-" + i, Map.of("type", "event"), "ALLOW"), "bench");
            }
            HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).executor(vthreads)
                    .connectTimeout(Duration.ofSeconds(5)).build();
            if (baseline) {
                HttpRequest cron = authorized(URI.create(server.url() + "/api/cron/next?expression=0+2+*+*+*&n=1")).GET().build();
                List<HttpRequest> same = new ArrayList<>();
                for (int c = 0; c < clients; c++) {
                    same.add(cron);
                }
                rows.add(measure(pg, "postgres", NO_DATABASE, http, same, 200));
                opts.awaitQuiet();
            }
            List<HttpRequest> triggers = new ArrayList<>();
            for (int c = 0; c < clients; c++) {
                triggers.add(authorized(URI.create(server.url() + "/api/trigger")).header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString("{\"taskName\":\"api-" + (c % eventTasks) + "\"}")).build());
            }
            Map<String, Object> out = measure(pg, h2 ? "postgres" : "ax_bench", h2 ? "H2 (embedded default)" : "PostgreSQL",
                    http, triggers, 202);
            out.put("loopErrors", server.node().loopErrors());
            rows.add(out);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            AxServers.deleteTree(dir);
        }
        return rows;
    }

    static final String NO_DATABASE = "none: GET /api/cron/next, same server and clients";

    private static HttpRequest.Builder authorized(URI uri) {
        return HttpRequest.newBuilder(uri).header("Authorization", "Bearer " + AxServers.TOKEN).timeout(Duration.ofSeconds(30));
    }

    /**
     * Closed loop: each client sends its request again as soon as the answer came, for the warm-up and then the
     * measured seconds; an answer with another status than {@code ok} is an error.
     */
    private Map<String, Object> measure(Pg pg, String database, String label, HttpClient http, List<HttpRequest> perClient,
                                        int ok) throws InterruptedException {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("database", label);
        Window w = new Window(pg, database);
        long warmEnd = System.nanoTime() + opts.warmup() * 1_000_000_000L;
        long end = warmEnd + opts.measure() * 1_000_000_000L;
        List<Histogram> hs = new ArrayList<>();
        AtomicLong answered = new AtomicLong();
        AtomicLong errors = new AtomicLong();
        List<Thread> threads = new ArrayList<>();
        for (HttpRequest req : perClient) {
            Histogram h = new Histogram(60_000_000L, 3); // microseconds
            hs.add(h);
            threads.add(Thread.ofVirtual().start(() -> {
                while (true) {
                    long s = System.nanoTime();
                    if (s >= end) {
                        return;
                    }
                    boolean measured = s >= warmEnd;
                    try {
                        HttpResponse<String> resp = http.send(req, HttpResponse.BodyHandlers.ofString());
                        long e = System.nanoTime();
                        if (measured && e < end) {
                            if (resp.statusCode() == ok) {
                                answered.incrementAndGet();
                                h.recordValue(Math.min((e - s) / 1000, h.getHighestTrackableValue()));
                            } else {
                                errors.incrementAndGet();
                            }
                        }
                    } catch (Exception ex) {
                        if (measured) {
                            errors.incrementAndGet();
                        }
                    }
                }
            }));
        }
        Window.sleep(opts.warmup() * 1000L);
        w.begin();
        for (Thread th : threads) {
            th.join();
        }
        w.end();
        Histogram all = new Histogram(60_000_000L, 3);
        hs.forEach(all::add);
        out.put("requests", answered.get());
        out.put("errors", errors.get());
        out.put("requestsPerSecond", W1Stats.round(answered.get() / (double) opts.measure()));
        out.put("p50Ms", all.getTotalCount() == 0 ? -1 : all.getValueAtPercentile(50) / 1000.0);
        out.put("p99Ms", all.getTotalCount() == 0 ? -1 : all.getValueAtPercentile(99) / 1000.0);
        out.put("maxMs", all.getTotalCount() == 0 ? -1 : all.getMaxValue() / 1000.0);
        out.put("jvmCpuCores", Window.round2(w.jvmCores()));
        out.put("postgresCpuCores", Window.round2(w.pgCores()));
        out.put("boxCpuCores", Window.round2(w.boxCores()));
        out.put("loadAverageAtStart", w.loadAtStart);
        return out;
    }
}
