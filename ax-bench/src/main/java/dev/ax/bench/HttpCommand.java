package dev.ax.bench;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * HTTP runs against a local server: an AxServer with its in-process executor runs event tasks
 * whose action POSTs to a JDK HttpServer on loopback that answers 200 at once. Compared with a
 * plain Java client doing the same requests with the same concurrency in the same invocation.
 */
@Command(
        name = "http",
        description = "HTTP runs (action type http) against a local server, through AxServer's in-process executor")
final class HttpCommand implements Callable<Integer> {
    @Mixin
    BenchOptions opts = new BenchOptions();

    @Option(names = "--db", defaultValue = "pg", description = "pg or h2 (default ${DEFAULT-VALUE})")
    String db;

    @Option(
            names = "--tasks",
            defaultValue = "8",
            description = "event tasks the runs are spread over (default ${DEFAULT-VALUE})")
    int tasks = 8;

    /** HTTP calls mostly wait on the network: the executor runs many at once, as a user would configure it for them. */
    @Option(
            names = "--concurrency",
            defaultValue = "64",
            description = "runs the in-process executor runs at a time"
                    + " (--executor-concurrency), and the raw client's threads (default ${DEFAULT-VALUE})")
    int concurrency = 64;

    @Option(
            names = "--feed",
            defaultValue = "fired",
            description = "how the runs are created: fired (in batches, as the firing"
                    + " loop writes a batch of due runs: the executor sets the pace) or trigger (one Tasks.trigger transaction per run,"
                    + " what POST /api/trigger does) (default ${DEFAULT-VALUE})")
    ShellCommand.Feed feed = ShellCommand.Feed.fired;

    @Override
    public Integer call() throws IOException {
        W1Command.Outcome o = run();
        System.out.println(o.table().render());
        System.out.println(Bar.table(o.bars()).render());
        return 0;
    }

    W1Command.Outcome run() throws IOException {
        Pg pg = opts.pg();
        AtomicLong hits = new AtomicLong();
        HttpServer target = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 256);
        target.createContext("/hook", exchange -> {
            exchange.getRequestBody().readAllBytes();
            hits.incrementAndGet();
            exchange.sendResponseHeaders(200, -1);
            exchange.close();
        });
        target.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        target.start();
        try {
            String url = "http://127.0.0.1:" + target.getAddress().getPort() + "/hook";
            opts.awaitQuiet();
            System.err.println("http: raw client rate ...");
            Rate.Measured raw = rawRate(url, concurrency, Math.min(opts.measure(), 10));
            System.err.println("http: AX in-process executor ...");
            Map<String, Object> ax = ShellCommand.ax(
                    pg, opts, db, tasks, Map.of("type", "http", "method", "POST", "url", url), concurrency, feed);
            double axRate = W2Command.d(ax, "runsPerSecond");
            Map<String, Object> rawM = new LinkedHashMap<>();
            rawM.put("system", "raw java.net.http client");
            rawM.put("requestsPerSecond", W1Stats.round(raw.perSecond()));
            rawM.put("boxCpuCores", Window.round2(raw.boxCores()));
            rawM.put("concurrency", concurrency);
            rawM.put("serverHits", hits.get());
            Table t = new Table(
                    "HTTP runs (POST to a local server answering 200), " + opts.measure() + " s measured, single run",
                    "what",
                    "runs/s",
                    "AX / this",
                    "machine CPU",
                    "CPU per run");
            t.row(
                    "AX, in-process executor (" + ax.get("database") + ", concurrency " + concurrency + ", " + tasks
                            + " event task" + (tasks == 1 ? "" : "s") + ", " + feed.describe() + ")",
                    Table.num(axRate),
                    "1.0×",
                    Table.cores(W2Command.d(ax, "boxCpuCores")),
                    Table.cpuMs(W2Command.d(ax, "boxCpuMsPerRun")));
            t.row(
                    "raw: java.net.http client x" + concurrency + " threads, same server",
                    Table.num(raw.perSecond()),
                    Table.ratio(axRate, raw.perSecond()),
                    Table.cores(raw.boxCores()),
                    Table.cpuMs(raw.cpuMsPerOp()));
            t.note("READY + RUNNING kept near " + 4 * concurrency + " (mean seen " + ax.get("meanReadyOrRunning")
                    + "); JVM CPU "
                    + Table.cores(W2Command.d(ax, "jvmCpuCores")) + " cores (AX, executor and target server), PG CPU "
                    + Table.cores(W2Command.d(ax, "postgresCpuCores")) + " cores; load average "
                    + Table.dec(W2Command.d(ax, "loadAverageAtStart"), 1) + ".");
            t.note(
                    "machine CPU: cores the whole machine was busy (/proc/stat: every process and the kernel); CPU per run: that"
                            + " divided by the rate. " + ShellCommand.ceiling(W2Command.d(ax, "boxCpuMsPerRun")));
            List<Map<String, Object>> results = List.of(ax, rawM);
            Map<String, Object> options = opts.toMap();
            options.put("db", db);
            options.put("tasks", tasks);
            System.err.println("results: " + Results.write(opts.resultsDir, "http", options, results, t.render(), pg));
            // The bar: a share of what the plain client reaches against the same server in the same run.
            double pct = 100 * axRate / raw.perSecond();
            List<Bar> bars = List.of(new Bar(
                    "HTTP runs against a local server",
                    ">= 60 % of the raw client's rate, same server",
                    Table.num(axRate) + "/s = " + Table.num(pct) + " % of " + Table.num(raw.perSecond()) + "/s",
                    "-",
                    "-",
                    "-",
                    "-",
                    Bar.yes(pct >= 60)));
            return new W1Command.Outcome(t, bars, results);
        } finally {
            target.stop(0);
        }
    }

    /** Requests per second of a plain client, {@code threads} at a time, against the same server. */
    static Rate.Measured rawRate(String url, int threads, int seconds) {
        HttpClient http = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5))
                .build();
        HttpRequest req = HttpRequest.newBuilder(URI.create(url))
                .POST(HttpRequest.BodyPublishers.noBody())
                .build();
        try {
            // A thread whose connection fails stops there; the others go on.
            return Rate.measured(threads, seconds, end -> {
                long n = 0;
                while (System.nanoTime() < end) {
                    try {
                        if (http.send(req, HttpResponse.BodyHandlers.discarding())
                                        .statusCode()
                                == 200) {
                            n++;
                        }
                    } catch (IOException e) {
                        return n;
                    }
                }
                return n;
            });
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Rate.Measured.NONE;
        } catch (Exception e) {
            throw new IllegalStateException("plain client against " + url + ": " + e.getMessage(), e);
        }
    }
}
