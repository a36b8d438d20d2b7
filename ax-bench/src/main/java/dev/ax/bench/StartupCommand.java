package dev.ax.bench;

import dev.ax.server.AxServer;
import java.lang.management.ManagementFactory;
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
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * Start-up of the embedded default: a fresh JVM per try, a fresh data directory, H2, the
 * in-process executor; the time from {@code AxServer.start} to the first {@code /healthz} 200,
 * and from launching the JVM to it.
 */
@Command(name = "startup", description = "Embedded default (H2, fresh data dir): AxServer.start to /healthz 200, median of 5 fresh JVMs")
final class StartupCommand implements Callable<Integer> {
    @Mixin
    BenchOptions opts = new BenchOptions();

    @Option(names = "--tries", defaultValue = "5")
    int tries;

    @Override
    public Integer call() {
        W1Command.Outcome o = run();
        System.out.println(o.table().render());
        System.out.println(Bar.table(o.bars()).render());
        return 0;
    }

    W1Command.Outcome run() {
        List<Map<String, Object>> results = new ArrayList<>();
        double[] start = new double[tries];
        double[] launch = new double[tries];
        for (int i = 0; i < tries; i++) {
            opts.awaitQuiet();
            Path dir = AxServers.tempDir("ax-bench-startup");
            try {
                ChildJvm.Answer a = ChildJvm.run("STARTUP", 60_000, JvmOptions.ofAx(), "startup-child", "--data-dir", dir.toString());
                Map<String, Object> m = new LinkedHashMap<>();
                for (String kv : a.line().split(" ")) {
                    String[] p = kv.split("=");
                    m.put(p[0], Long.parseLong(p[1]));
                }
                m.put("launchToReportMs", a.wallMillis());
                results.add(m);
                start[i] = ((Number) m.get("startToHealthyMs")).doubleValue();
                launch[i] = ((Number) m.get("jvmUptimeAtHealthyMs")).doubleValue();
                System.err.printf("startup %d: %s%n", i + 1, m);
            } finally {
                AxServers.deleteTree(dir);
            }
        }
        double medStart = Table.median(start);
        double medLaunch = Table.median(launch);
        Table t = new Table("Start-up, embedded default (H2, fresh data dir, in-process executor), median of " + tries + " fresh JVMs",
                "measure", "median", "all");
        t.row("AxServer.start -> /healthz 200", Table.ms(medStart), join(start));
        t.row("JVM launch -> /healthz 200 (JVM uptime)", Table.ms(medLaunch), join(launch));
        System.err.println("results: " + Results.write(opts.resultsDir, "startup", opts.toMap(), results, t.render(), null));
        List<Bar> bars = List.of(new Bar("start-up, embedded default", "healthy in <= 2 s",
                Table.ms(medStart) + " (" + Table.ms(medLaunch) + " from JVM launch)", "-", "-", "-", "-", Bar.yes(medStart <= 2000)));
        return new W1Command.Outcome(t, bars, results);
    }

    static String join(double[] v) {
        List<String> s = new ArrayList<>();
        for (double d : v) {
            s.add(Long.toString((long) d));
        }
        return String.join(", ", s) + " ms";
    }

    /** The measured side, in the fresh JVM. */
    @Command(name = "startup-child", hidden = true)
    static final class Child implements Callable<Integer> {
        @Option(names = "--data-dir", required = true)
        Path dataDir;

        @Override
        public Integer call() throws Exception {
            long t = System.nanoTime();
            try (AxServer server = AxServer.start(new dev.ax.server.ServerConfig(0, dataDir, null, List.of("default"), null, null,
                    dev.ax.scheduler.SchedulerConfig.DEFAULT, Duration.ZERO))) {
                HttpClient http = HttpClient.newHttpClient();
                HttpRequest req = HttpRequest.newBuilder(URI.create(server.url() + "/healthz")).build();
                while (true) {
                    try {
                        if (http.send(req, HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
                            break;
                        }
                    } catch (java.io.IOException e) {
                        // not listening yet
                    }
                    Thread.sleep(5);
                }
                long ms = (System.nanoTime() - t) / 1_000_000;
                System.out.println("STARTUP startToHealthyMs=" + ms + " jvmUptimeAtHealthyMs=" + ManagementFactory.getRuntimeMXBean().getUptime());
                System.out.flush();
            }
            return 0;
        }
    }
}
