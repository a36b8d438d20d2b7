package dev.ax.bench;

import dev.ax.scheduler.SchedulerConfig;
import dev.ax.server.AxServer;
import dev.ax.server.ServerConfig;
import java.io.IOException;
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
@Command(
        name = "startup",
        description = "Embedded default (H2, fresh data dir): AxServer.start to /healthz 200, median of 5 fresh JVMs"
                + " (with a class data sharing archive written by a first one, as ./ax does); and a client command,"
                + " ./ax task list, beside a bare JVM's start")
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
        // As ./ax does: the first start writes the class data sharing archive when it exits, later ones map it.
        Path cds = AxServers.tempDir("ax-bench-cds");
        try {
            Path archive = cds.resolve("ax-server.jsa");
            Map<String, Object> first = once(List.of("-XX:ArchiveClassesAtExit=" + archive, "-Xlog:cds*=off"));
            first.put("archive", "written at exit");
            results.add(first);
            for (int i = 0; i < tries; i++) {
                Map<String, Object> m = once(List.of("-XX:SharedArchiveFile=" + archive, "-Xlog:cds*=off"));
                m.put("archive", "mapped");
                results.add(m);
                start[i] = ((Number) m.get("startToHealthyMs")).doubleValue();
                launch[i] = ((Number) m.get("jvmUptimeAtHealthyMs")).doubleValue();
            }
            ClientStart.Figures client = new ClientStart(opts, tries).measure();
            double medStart = Table.median(start);
            double medLaunch = Table.median(launch);
            double medClient = Table.median(client.archive());
            Table t = new Table(
                    "Start-up, embedded default (H2, fresh data dir, in-process executor), fresh JVMs with jvm.options and,"
                            + " as ./ax, a class data sharing archive written by the first",
                    "measure",
                    "median",
                    "all");
            t.row("AxServer.start -> /healthz 200", Table.ms(medStart), join(start));
            t.row("JVM launch -> /healthz 200 (JVM uptime)", Table.ms(medLaunch), join(launch));
            t.row(
                    "first start, no archive yet: AxServer.start -> /healthz 200",
                    Table.ms(((Number) first.get("startToHealthyMs")).doubleValue()),
                    "");
            t.row(
                    "first start, no archive yet: JVM launch -> /healthz 200",
                    Table.ms(((Number) first.get("jvmUptimeAtHealthyMs")).doubleValue()),
                    "");
            t.row(
                    "ax task list, fresh JVM per call (./ax, clients' archive)",
                    Table.ms(medClient),
                    join(client.archive()));
            t.row(
                    "ax task list without the archive (AX_CDS=0)",
                    Table.ms(Table.median(client.noArchive())),
                    join(client.noArchive()));
            t.row(
                    "floor: a JVM that only prints its version (java -version)",
                    Table.ms(Table.median(client.jvmFloor())),
                    join(client.jvmFloor()));
            results.add(Map.of(
                    "clientArchiveMs", client.archive(),
                    "clientNoArchiveMs", client.noArchive(),
                    "jvmFloorMs", client.jvmFloor()));
            System.err.println(
                    "results: " + Results.write(opts.resultsDir, "startup", opts.toMap(), results, t.render(), null));
            List<Bar> bars = List.of(
                    new Bar(
                            "start-up, embedded default",
                            "healthy in <= 2 s",
                            Table.ms(medStart) + " (" + Table.ms(medLaunch) + " from JVM launch)",
                            "-",
                            "-",
                            "-",
                            "-",
                            Bar.yes(medStart <= 2000)),
                    new Bar(
                            "client command (ax task list)",
                            "well under 1 s",
                            Table.ms(medClient) + " (floor " + Table.ms(Table.median(client.jvmFloor())) + ")",
                            "-",
                            "-",
                            "-",
                            "-",
                            Bar.yes(medClient <= 500)));
            return new W1Command.Outcome(t, bars, results);
        } finally {
            AxServers.deleteTree(cds);
        }
    }

    /** One start in a fresh JVM on a fresh data directory, with {@code jvm.options} and {@code cdsOptions}. */
    private Map<String, Object> once(List<String> cdsOptions) {
        opts.awaitQuiet();
        Path dir = AxServers.tempDir("ax-bench-startup");
        try {
            List<String> jvm = new ArrayList<>(cdsOptions);
            jvm.addAll(JvmOptions.ofAx());
            ChildJvm.Answer a = ChildJvm.run("STARTUP", 60_000, jvm, "startup-child", "--data-dir", dir.toString());
            Map<String, Object> m = new LinkedHashMap<>();
            for (String kv : a.line().split(" ")) {
                String[] p = kv.split("=");
                m.put(p[0], Long.parseLong(p[1]));
            }
            m.put("launchToReportMs", a.wallMillis());
            System.err.printf("startup: %s%n", m);
            return m;
        } finally {
            AxServers.deleteTree(dir);
        }
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
            HttpClient http = HttpClient.newHttpClient(); // the measuring client's own set-up is not AX's start-up
            long t = System.nanoTime();
            try (AxServer server = AxServer.start(new ServerConfig(
                    0, dataDir, null, List.of("default"), null, null, SchedulerConfig.DEFAULT, Duration.ZERO))) {
                HttpRequest req = HttpRequest.newBuilder(URI.create(server.url() + "/healthz"))
                        .build();
                while (true) {
                    try {
                        if (http.send(req, HttpResponse.BodyHandlers.discarding())
                                        .statusCode()
                                == 200) {
                            break;
                        }
                    } catch (IOException e) {
                        // not listening yet
                    }
                    Thread.sleep(5);
                }
                long ms = (System.nanoTime() - t) / 1_000_000;
                System.out.println("STARTUP startToHealthyMs=" + ms + " jvmUptimeAtHealthyMs="
                        + ManagementFactory.getRuntimeMXBean().getUptime());
                System.out.flush();
            }
            return 0;
        }
    }
}
