package dev.ax.bench;

import dev.ax.scheduler.SchedulerConfig;
import dev.ax.server.AxServer;
import dev.ax.server.ServerConfig;
import dev.ax.store.DbConfig;
import java.lang.management.ManagementFactory;
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
 * RSS of a node holding N cron tasks with its loops going: a fresh JVM with default options (as
 * {@code ./ax server} runs), the embedded default database, the in-process executor.
 */
@Command(
        name = "memory",
        description = "RSS of a running node with N cron tasks (fresh JVM, default JVM options), after a GC")
final class MemoryCommand implements Callable<Integer> {
    @Mixin
    BenchOptions opts = new BenchOptions();

    @Option(names = "--tasks", defaultValue = "10000")
    int tasks;

    @Option(
            names = "--db",
            defaultValue = "h2",
            description = "h2 (the embedded default) or pg (default ${DEFAULT-VALUE})")
    String db;

    @Option(
            names = "--settle",
            defaultValue = "10",
            description = "seconds the node runs with its tasks before measuring")
    int settle;

    @Option(
            names = "--child-jvm-opts",
            description = "JVM options for the measured JVM, e.g. '-Xmx128m -XX:+UseSerialGC'"
                    + " (default: those of jvm.options, which ./ax starts AX with; '' for the JVM's own defaults)")
    String childJvmOpts;

    @Override
    public Integer call() {
        W1Command.Outcome o = run();
        System.out.println(o.table().render());
        System.out.println(Bar.table(o.bars()).render());
        return 0;
    }

    W1Command.Outcome run() {
        Pg pg = opts.pg();
        opts.awaitQuiet();
        boolean axOptions = childJvmOpts == null;
        String jvmOpts = axOptions ? String.join(" ", JvmOptions.ofAx()) : childJvmOpts;
        Path dir = AxServers.tempDir("ax-bench-memory");
        Map<String, Object> m = new LinkedHashMap<>();
        try {
            List<String> args = new ArrayList<>(List.of(
                    "memory-child",
                    "--tasks",
                    Integer.toString(tasks),
                    "--data-dir",
                    dir.toString(),
                    "--settle",
                    Integer.toString(opts.quick ? Math.min(settle, 5) : settle)));
            if ("pg".equalsIgnoreCase(db)) {
                pg.recreate("ax_bench");
                args.addAll(List.of("--pg-url", pg.url("ax_bench"), "--pg-user", pg.user()));
            }
            ChildJvm.Answer a = ChildJvm.run(
                    "MEMORY", 600_000, Pg.split(jvmOpts.strip().replace(' ', ',')), args.toArray(String[]::new));
            for (String kv : a.line().split(" ")) {
                String[] p = kv.split("=");
                m.put(p[0], Long.parseLong(p[1]));
            }
        } finally {
            AxServers.deleteTree(dir);
        }
        m.put("tasks", tasks);
        m.put("database", "pg".equalsIgnoreCase(db) ? "PostgreSQL" : "H2");
        m.put("jvmOptions", jvmOpts.isBlank() ? "the JVM's defaults" : jvmOpts);
        long rss = ((Number) m.get("rssAfterGcBytes")).longValue();
        Table t = new Table(
                String.format(
                        "Memory: %,d cron tasks on a running node (%s, in-process executor, JVM options: %s), single run",
                        tasks, m.get("database"), m.get("jvmOptions")),
                "measure",
                "value");
        t.row("RSS after GC", Table.mb(rss));
        t.row("RSS before GC", Table.mb(((Number) m.get("rssBeforeGcBytes")).longValue()));
        t.row("heap used after GC", Table.mb(((Number) m.get("heapUsedAfterGcBytes")).longValue()));
        t.row("heap committed", Table.mb(((Number) m.get("heapCommittedBytes")).longValue()));
        t.row("max heap", Table.mb(((Number) m.get("heapMaxBytes")).longValue()));
        t.row("task creation", m.get("createMillis") + " ms");
        System.err.println(
                "results: " + Results.write(opts.resultsDir, "memory", opts.toMap(), List.of(m), t.render(), pg));
        List<Bar> bars = List.of(new Bar(
                String.format("memory at %,d tasks", tasks)
                        + (axOptions ? " (./ax's jvm.options)" : " (JVM options: " + m.get("jvmOptions") + ")"),
                "RSS <= 256 MB",
                Table.mb(rss) + " after GC (" + Table.mb(((Number) m.get("rssBeforeGcBytes")).longValue()) + " before)",
                "-",
                "-",
                "-",
                "-",
                Bar.yes(rss <= 256L * 1024 * 1024)));
        return new W1Command.Outcome(t, bars, List.of(m));
    }

    @Command(name = "memory-child", hidden = true)
    static final class Child implements Callable<Integer> {
        @Option(names = "--tasks", required = true)
        int tasks;

        @Option(names = "--data-dir", required = true)
        Path dataDir;

        @Option(names = "--settle", defaultValue = "10")
        int settle;

        @Option(names = "--pg-url")
        String pgUrl;

        @Option(names = "--pg-user", defaultValue = "postgres")
        String pgUser;

        @Override
        public Integer call() throws Exception {
            DbConfig db = pgUrl == null ? null : new DbConfig(pgUrl, pgUser, "", DbConfig.DEFAULT_POOL_SIZE);
            try (AxServer server = AxServer.start(new ServerConfig(
                    0, dataDir, db, List.of("default"), null, null, SchedulerConfig.DEFAULT, Duration.ZERO))) {
                long t = System.nanoTime();
                for (int i = 0; i < tasks; i++) {
                    // Daily, spread over the day's minutes: the node holds them all and its loops run, few fire.
                    Map<String, Object> cron = Map.of(
                            "type",
                            "cron",
                            "expression",
                            (i % 60) + " " + ((i / 60) % 24) + " * * *",
                            "timezone",
                            "UTC");
                    server.node().tasks().create(AxHarness.task(String.format("mem-%05d", i), cron, null), "bench");
                }
                long createMillis = (System.nanoTime() - t) / 1_000_000;
                Thread.sleep(settle * 1000L);
                long before = Proc.rssBytes();
                System.gc();
                Thread.sleep(500);
                System.gc();
                Thread.sleep(1000);
                long after = Proc.rssBytes();
                Runtime rt = Runtime.getRuntime();
                var heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage();
                System.out.println("MEMORY rssAfterGcBytes=" + after + " rssBeforeGcBytes=" + before
                        + " heapUsedAfterGcBytes=" + heap.getUsed()
                        + " heapCommittedBytes=" + heap.getCommitted() + " heapMaxBytes=" + rt.maxMemory()
                        + " createMillis=" + createMillis
                        + " loopErrors=" + server.node().loopErrors());
                System.out.flush();
            }
            return 0;
        }
    }
}
