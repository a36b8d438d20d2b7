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
 * {@code POST /api/trigger} against a full AxServer on loopback: C clients, each sending its next
 * request as soon as the previous one is answered (closed loop). The clients are {@code wrk} when
 * it is installed (a process of its own, as the bar names it), else the JDK's HttpClient on
 * virtual threads in this JVM, which then shares the server's heap and collector and spends about
 * as much CPU as the server. The server runs no executor, so the figure is the API and the insert
 * path alone; the runs created stay READY.
 */
@Command(name = "api", description = "POST /api/trigger on AxServer (H2 and PostgreSQL): requests/s and latency")
final class ApiCommand implements Callable<Integer> {
    @Mixin
    BenchOptions opts = new BenchOptions();

    @Option(names = "--clients", defaultValue = "32", description = "concurrent clients (default ${DEFAULT-VALUE})")
    int clients;

    @Option(names = "--dbs", defaultValue = "h2,pg", description = "h2 and/or pg (default ${DEFAULT-VALUE})")
    String dbs;

    @Option(
            names = "--event-tasks",
            defaultValue = "1",
            description = "event tasks the requests are spread over (default ${DEFAULT-VALUE})")
    int eventTasks;

    /** Who sends the requests: wrk, the JDK's HttpClient in this JVM, or wrk when it is installed. */
    enum Client {
        auto,
        wrk,
        java
    }

    @Option(
            names = "--client",
            defaultValue = "auto",
            description = "wrk, java (the JDK's HttpClient in this JVM) or auto: wrk"
                    + " when it is on the PATH (default ${DEFAULT-VALUE})")
    Client client;

    /** Whether this run's clients are wrk (else the JDK's HttpClient in this JVM). */
    private boolean wrk;

    @Override
    public Integer call() {
        W1Command.Outcome o = run();
        System.out.println(o.table().render());
        System.out.println(Bar.table(o.bars()).render());
        return 0;
    }

    W1Command.Outcome run() {
        Pg pg = opts.pg();
        wrk = switch (client) {
            case wrk -> true;
            case java -> false;
            case auto -> Wrk.installed();
        };
        List<Map<String, Object>> results = new ArrayList<>();
        Table t = new Table(
                "POST /api/trigger, " + clients + " clients on loopback ("
                        + (wrk ? "wrk" : "the JDK's HttpClient in the" + " server's JVM") + "), " + eventTasks
                        + " event task(s), " + opts.measure() + " s measured after " + opts.warmup()
                        + " s warm-up, single run",
                "database",
                "requests/s",
                "p50",
                "p99",
                "max",
                "errors",
                "JVM CPU",
                "PG CPU",
                "machine CPU",
                "load");
        boolean baseline = true;
        for (String d : Pg.split(dbs)) {
            System.err.println("api: " + d + " ...");
            opts.awaitQuiet();
            System.gc();
            for (Map<String, Object> r : one(pg, d.equalsIgnoreCase("h2"), baseline)) {
                results.add(r);
                t.row(
                        r.get("database"),
                        Table.num(W2Command.d(r, "requestsPerSecond")),
                        Table.dec(W2Command.d(r, "p50Ms"), 1) + " ms",
                        Table.dec(W2Command.d(r, "p99Ms"), 1) + " ms",
                        Table.dec(W2Command.d(r, "maxMs"), 1) + " ms",
                        Table.num(W2Command.d(r, "errors")),
                        Table.cores(W2Command.d(r, "jvmCpuCores")),
                        Table.cores(W2Command.d(r, "postgresCpuCores")),
                        Table.cores(W2Command.d(r, "boxCpuCores")),
                        Table.dec(W2Command.d(r, "loadAverageAtStart"), 1));
            }
            baseline = false;
        }
        t.note((wrk
                        ? "The clients are wrk, a process of its own: the JVM CPU is the server's, the machine CPU also has wrk's."
                        : "The clients run in the server's JVM (no wrk on the PATH): the JVM CPU is both.")
                + " No executor runs: the runs created stay READY."
                + " The first row is the ceiling of the HTTP stack on this box: the same server, clients and token, a route"
                + " that answers without the database.");
        Map<String, Object> options = opts.toMap();
        options.put("clients", clients);
        options.put("eventTasks", eventTasks);
        options.put("client", wrk ? "wrk" : "java");
        System.err.println("results: " + Results.write(opts.resultsDir, "api", options, results, t.render(), pg));
        List<Bar> bars = new ArrayList<>();
        String ceiling = results.stream()
                .filter(r -> NO_DATABASE.equals(r.get("database")))
                .findFirst()
                .map(r -> " (the same server without the database: " + Table.num(W2Command.d(r, "requestsPerSecond"))
                        + " req/s)")
                .orElse("");
        for (Map<String, Object> r : results) {
            if (NO_DATABASE.equals(r.get("database"))) {
                continue;
            }
            double rps = W2Command.d(r, "requestsPerSecond");
            double p99 = W2Command.d(r, "p99Ms");
            bars.add(new Bar(
                    "API POST /api/trigger (" + r.get("database") + ")",
                    ">= 5,000 req/s, p99 <= 20 ms",
                    Table.num(rps) + " req/s, p99 " + Table.dec(p99, 1) + " ms (" + (wrk ? "wrk" : "Java client") + ")"
                            + ceiling,
                    "-",
                    "-",
                    "-",
                    "-",
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
            HttpClient http = HttpClient.newBuilder()
                    .version(HttpClient.Version.HTTP_1_1)
                    .executor(vthreads)
                    .connectTimeout(Duration.ofSeconds(5))
                    .build();
            if (baseline) {
                // With "after" given, the route reads no clock from the database: no database at all.
                Load cron = new Load(
                        "GET",
                        URI.create(server.url() + "/api/cron/next?expression=0+2+*+*+*&count=1"
                                + "&after=2026-01-01T00:00:00Z"),
                        List.of(),
                        200);
                rows.add(measure(pg, "postgres", NO_DATABASE, http, cron));
                opts.awaitQuiet();
            }
            List<String> bodies = new ArrayList<>();
            for (int i = 0; i < eventTasks; i++) {
                bodies.add("{\"taskName\":\"api-" + i + "\"}");
            }
            Load trigger = new Load("POST", URI.create(server.url() + "/api/trigger"), bodies, 202);
            String database = h2 ? "postgres" : "ax_bench";
            String label = h2 ? "H2 (embedded default)" : "PostgreSQL";
            Map<String, Object> out = measure(pg, database, label, http, trigger);
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

    /** One kind of request: each client sends it with the bodies in turn (none: a GET), and expects {@code ok}. */
    private record Load(String method, URI uri, List<String> bodies, int ok) {
        Map<String, String> headers() {
            Map<String, String> h = new LinkedHashMap<>();
            h.put("Authorization", "Bearer " + AxServers.TOKEN);
            if (!bodies.isEmpty()) {
                h.put("Content-Type", "application/json");
            }
            return h;
        }

        /** Client {@code c}'s request (the Java client sends the same one each time: client c, body c mod n). */
        HttpRequest request(int c) {
            HttpRequest.Builder b = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30));
            headers().forEach(b::header);
            return (bodies.isEmpty()
                            ? b.GET()
                            : b.POST(HttpRequest.BodyPublishers.ofString(bodies.get(c % bodies.size()))))
                    .build();
        }
    }

    /** The same closed loop with wrk: a warm-up run, then the measured one. */
    private Map<String, Object> measureWrk(Pg pg, String database, String label, Load load) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("database", label);
        Wrk.run(load.uri(), load.method(), load.headers(), load.bodies(), load.ok(), clients, opts.warmup());
        Window w = new Window(pg, database);
        w.begin();
        Wrk.Result r =
                Wrk.run(load.uri(), load.method(), load.headers(), load.bodies(), load.ok(), clients, opts.measure());
        w.end();
        out.put("requests", r.ok());
        out.put("errors", r.wrongStatus() + r.socketErrors());
        out.put("requestsPerSecond", W1Stats.round(r.ok() / r.seconds()));
        out.put("p50Ms", r.p50Micros() / 1000.0);
        out.put("p99Ms", r.p99Micros() / 1000.0);
        out.put("maxMs", r.maxMicros() / 1000.0);
        putCosts(out, w);
        return out;
    }

    /**
     * Closed loop: each client sends its request again as soon as the answer came, for the warm-up and then the
     * measured seconds; an answer with another status than {@code ok} is an error. With wrk, wrk's loop.
     */
    private Map<String, Object> measure(Pg pg, String database, String label, HttpClient http, Load load)
            throws InterruptedException {
        if (wrk) {
            return measureWrk(pg, database, label, load);
        }
        List<HttpRequest> perClient = new ArrayList<>();
        for (int c = 0; c < clients; c++) {
            perClient.add(load.request(c));
        }
        int ok = load.ok();
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
        putCosts(out, w);
        return out;
    }

    private static void putCosts(Map<String, Object> out, Window w) {
        out.put("jvmCpuCores", Window.round2(w.jvmCores()));
        out.put("postgresCpuCores", Window.round2(w.pgCores()));
        out.put("boxCpuCores", Window.round2(w.boxCores()));
        out.put("loadAverageAtStart", w.loadAtStart);
    }
}
