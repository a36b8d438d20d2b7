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
        for (String d : Pg.split(dbs)) {
            System.err.println("api: " + d + " ...");
            opts.awaitQuiet();
            System.gc();
            Map<String, Object> r = one(pg, d.equalsIgnoreCase("h2"));
            results.add(r);
            t.row(r.get("database"), Table.num(W2Command.d(r, "requestsPerSecond")), Table.dec(W2Command.d(r, "p50Ms"), 1) + " ms",
                    Table.dec(W2Command.d(r, "p99Ms"), 1) + " ms", Table.dec(W2Command.d(r, "maxMs"), 1) + " ms",
                    Table.num(W2Command.d(r, "errors")), Table.cores(W2Command.d(r, "jvmCpuCores")), Table.cores(W2Command.d(r, "postgresCpuCores")),
                    Table.dec(W2Command.d(r, "loadAverageAtStart"), 1));
        }
        t.note("Client and server share this machine's cores (the JVM CPU is both). No executor runs: the runs created stay READY.");
        Map<String, Object> options = opts.toMap();
        options.put("clients", clients);
        options.put("eventTasks", eventTasks);
        System.err.println("results: " + Results.write(opts.resultsDir, "api", options, results, t.render(), pg));
        List<Bar> bars = new ArrayList<>();
        for (Map<String, Object> r : results) {
            double rps = W2Command.d(r, "requestsPerSecond");
            double p99 = W2Command.d(r, "p99Ms");
            bars.add(new Bar("API POST /api/trigger (" + r.get("database") + ")", ">= 5,000 req/s, p99 <= 20 ms",
                    Table.num(rps) + " req/s, p99 " + Table.dec(p99, 1) + " ms", "-", "-", "-", "-", Bar.yes(rps >= 5000 && p99 <= 20)));
        }
        return new W1Command.Outcome(t, bars, results);
    }

    Map<String, Object> one(Pg pg, boolean h2) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("database", h2 ? "H2 (embedded default)" : "PostgreSQL");
        Path dir = AxServers.tempDir("ax-bench-api");
        Window w = new Window(pg, h2 ? "postgres" : "ax_bench");
        try (AxServer server = AxServers.start(pg, h2 ? null : "ax_bench", dir, false);
             ExecutorService vthreads = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int i = 0; i < eventTasks; i++) {
                server.node().tasks().create(AxHarness.task("api-" + i, Map.of("type", "event"), "ALLOW"), "bench");
            }
            HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).executor(vthreads)
                    .connectTimeout(Duration.ofSeconds(5)).build();
            URI uri = URI.create(server.url() + "/api/trigger");
            long warmEnd = System.nanoTime() + opts.warmup() * 1_000_000_000L;
            long end = warmEnd + opts.measure() * 1_000_000_000L;
            List<Histogram> hs = new ArrayList<>();
            AtomicLong ok = new AtomicLong();
            AtomicLong errors = new AtomicLong();
            List<Thread> threads = new ArrayList<>();
            for (int c = 0; c < clients; c++) {
                Histogram h = new Histogram(60_000_000L, 3); // microseconds
                hs.add(h);
                String body = "{\"taskName\":\"api-" + (c % eventTasks) + "\"}";
                HttpRequest req = HttpRequest.newBuilder(uri).header("Authorization", "Bearer " + AxServers.TOKEN)
                        .header("Content-Type", "application/json").timeout(Duration.ofSeconds(30))
                        .POST(HttpRequest.BodyPublishers.ofString(body)).build();
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
                                if (resp.statusCode() == 202) {
                                    ok.incrementAndGet();
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
            out.put("requests", ok.get());
            out.put("errors", errors.get());
            out.put("requestsPerSecond", W1Stats.round(ok.get() / (double) opts.measure()));
            out.put("p50Ms", all.getTotalCount() == 0 ? -1 : all.getValueAtPercentile(50) / 1000.0);
            out.put("p99Ms", all.getTotalCount() == 0 ? -1 : all.getValueAtPercentile(99) / 1000.0);
            out.put("maxMs", all.getTotalCount() == 0 ? -1 : all.getMaxValue() / 1000.0);
            out.put("loopErrors", server.node().loopErrors());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            AxServers.deleteTree(dir);
        }
        out.put("jvmCpuCores", Window.round2(w.jvmCores()));
        out.put("postgresCpuCores", Window.round2(w.pgCores()));
        out.put("loadAverageAtStart", w.loadAtStart);
        return out;
    }
}
