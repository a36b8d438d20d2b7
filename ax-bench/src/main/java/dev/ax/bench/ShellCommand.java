package dev.ax.bench;

import dev.ax.domain.run.Cause;
import dev.ax.domain.run.RunState;
import dev.ax.executor.ExecutorConfig;
import dev.ax.server.AxServer;
import dev.ax.store.NewRun;
import dev.ax.store.TaskRow;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * Shell runs of {@code true} through a full AX server with its in-process executor (real
 * processes, output streamed, every run tracked), against the raw spawn rate of this machine
 * measured in the same invocation with the same concurrency.
 */
@Command(
        name = "shell",
        description = "Shell runs of 'true' through AxServer's in-process executor vs the raw spawn rate")
final class ShellCommand implements Callable<Integer> {
    @Mixin
    BenchOptions opts = new BenchOptions();

    @Option(
            names = "--db",
            defaultValue = "pg",
            description = "pg or h2 (the embedded default) (default ${DEFAULT-VALUE})")
    String db;

    @Option(
            names = "--tasks",
            defaultValue = "1",
            description = "event tasks the runs are spread over, round robin (default ${DEFAULT-VALUE})")
    int tasks = 1;

    @Option(
            names = "--concurrency",
            defaultValue = "8",
            description = "runs the in-process executor runs at a time, and the raw"
                    + " spawners' threads (default ${DEFAULT-VALUE}, the executor's default)")
    int concurrency = ExecutorConfig.DEFAULT_CONCURRENCY;

    @Option(
            names = "--feed",
            defaultValue = "fired",
            description = "how the runs are created: fired (in batches, as the firing"
                    + " loop writes a batch of due runs: the executor sets the pace) or trigger (one Tasks.trigger transaction per run,"
                    + " what POST /api/trigger does) (default ${DEFAULT-VALUE})")
    Feed feed = Feed.fired;

    /** How the runs a workload executes are created. */
    enum Feed {
        /** {@code RunBatches.createAll}: the rows and events the firing loop writes for a batch of due runs, in one statement. */
        fired,
        /** {@code Tasks.trigger}, one transaction per run. */
        trigger;

        String describe() {
            return this == fired ? "runs created in batches as fired" : "one trigger per run";
        }
    }

    @Override
    public Integer call() {
        W1Command.Outcome o = run();
        System.out.println(o.table().render());
        System.out.println(Bar.table(o.bars()).render());
        return 0;
    }

    W1Command.Outcome run() {
        Pg pg = opts.pg();
        int secs = opts.measure();
        opts.awaitQuiet();
        System.err.println("shell: raw spawn rates ...");
        int rawSecs = Math.min(secs, 10);
        Rate.Measured rawTrue = rawSpawn(concurrency, rawSecs, "/bin/true");
        Rate.Measured rawSetsid = rawSpawn(concurrency, rawSecs, "setsid", "-w", "/bin/sh", "-c", "true");
        double bashLoop = bashLoop(Math.min(secs, 10));
        System.err.println("shell: AX in-process executor ...");
        Map<String, Object> ax = ax(pg, opts, db, tasks, Map.of("type", "shell", "command", "true"), concurrency, feed);
        double axRate = W2Command.d(ax, "runsPerSecond");
        Map<String, Object> raw = new LinkedHashMap<>();
        raw.put("system", "raw spawn");
        raw.put("javaProcessBuilderTruePerSecond", W1Stats.round(rawTrue.perSecond()));
        raw.put("javaProcessBuilderTrueBoxCpuCores", Window.round2(rawTrue.boxCores()));
        raw.put("javaProcessBuilderSetsidShTruePerSecond", W1Stats.round(rawSetsid.perSecond()));
        raw.put("javaProcessBuilderSetsidShTrueBoxCpuCores", Window.round2(rawSetsid.boxCores()));
        raw.put("bashLoopTruePerSecond", W1Stats.round(bashLoop));
        raw.put("concurrency", concurrency);
        Table t = new Table(
                "Shell runs of 'true', " + secs + " s measured, single run",
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
                "raw: ProcessBuilder(\"/bin/true\") x" + concurrency + " threads",
                Table.num(rawTrue.perSecond()),
                Table.ratio(axRate, rawTrue.perSecond()),
                Table.cores(rawTrue.boxCores()),
                Table.cpuMs(rawTrue.cpuMsPerOp()));
        t.row(
                "raw: ProcessBuilder(\"setsid -w /bin/sh -c true\") x" + concurrency + " (what AX spawns)",
                Table.num(rawSetsid.perSecond()),
                Table.ratio(axRate, rawSetsid.perSecond()),
                Table.cores(rawSetsid.boxCores()),
                Table.cpuMs(rawSetsid.cpuMsPerOp()));
        t.row("raw: bash loop of /bin/true, 1 process", Table.num(bashLoop), Table.ratio(axRate, bashLoop), "-", "-");
        t.note("AX runs: SUCCESS recorded with finished_at inside the window; READY + RUNNING kept near "
                + 4 * concurrency
                + " (mean seen " + ax.get("meanReadyOrRunning") + "); JVM CPU "
                + Table.cores(W2Command.d(ax, "jvmCpuCores"))
                + " cores, PG CPU " + Table.cores(W2Command.d(ax, "postgresCpuCores")) + " cores; load average "
                + Table.dec(W2Command.d(ax, "loadAverageAtStart"), 1) + ".");
        t.note(
                "machine CPU: cores the whole machine was busy (/proc/stat: every process, spawned ones included, and the kernel);"
                        + " CPU per run: that divided by the rate. " + ceiling(W2Command.d(ax, "boxCpuMsPerRun")));
        List<Map<String, Object>> results = List.of(ax, raw);
        Map<String, Object> options = opts.toMap();
        options.put("db", db);
        System.err.println("results: " + Results.write(opts.resultsDir, "shell", options, results, t.render(), pg));
        // The bar: the rate of the spawn AX must do (its own session, so that a timeout kills the whole tree), same
        // run.
        double pct = 100 * axRate / rawSetsid.perSecond();
        List<Bar> bars = List.of(new Bar(
                "shell runs (true), in-process executor",
                ">= 90 % of the raw spawn AX must do (setsid -w sh -c true)",
                Table.num(axRate) + "/s = " + Table.num(pct) + " % of " + Table.num(rawSetsid.perSecond()) + "/s",
                "-",
                "-",
                "-",
                "-",
                Bar.yes(pct >= 90)));
        return new W1Command.Outcome(t, bars, results);
    }

    /** "The 2 cores of this machine last for 3,600 runs/s at AX's CPU per run.": the ceiling CPU alone sets. */
    static String ceiling(double cpuMsPerRun) {
        int cores = Runtime.getRuntime().availableProcessors();
        return "The " + cores + " cores of this machine last for " + Table.num(cores * 1000 / cpuMsPerRun)
                + " runs/s at AX's CPU per run.";
    }

    /**
     * Processes started and waited for per second, {@code threads} at a time, for {@code seconds}, with the machine's CPU;
     * {@link Rate.Measured#NONE} when one cannot start.
     */
    static Rate.Measured rawSpawn(int threads, int seconds, String... command) {
        try {
            return Rate.measured(threads, seconds, end -> {
                ProcessBuilder pb = new ProcessBuilder(command)
                        .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                        .redirectError(ProcessBuilder.Redirect.DISCARD);
                long n = 0;
                while (System.nanoTime() < end) {
                    pb.start().waitFor();
                    n++;
                }
                return n;
            });
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Rate.Measured.NONE;
        } catch (Exception e) {
            return Rate.Measured.NONE;
        }
    }

    /** The reference box's "a shell loop spawns about 800 /bin/true per second" (BENCHMARKS.md, "This box"). */
    static double bashLoop(int seconds) {
        try {
            Process p = new ProcessBuilder(
                            "bash",
                            "-c",
                            "n=0; end=$((SECONDS+" + seconds
                                    + ")); while [ $SECONDS -lt $end ]; do /bin/true; n=$((n+1)); done; echo $n")
                    .redirectErrorStream(true)
                    .start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            p.waitFor();
            return Long.parseLong(out) / (double) seconds;
        } catch (IOException | RuntimeException e) {
            return Double.NaN;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Double.NaN;
        }
    }

    /**
     * Runs of {@code action} through a full AxServer with its in-process executor: a feeder keeps
     * about 4 x the executor's concurrency READY or RUNNING, spread round robin over {@code tasks}
     * event tasks; the figure is SUCCESS rows finished inside the measured window, per second.
     */
    static Map<String, Object> ax(
            Pg pg, BenchOptions opts, String db, int tasks, Map<String, Object> action, int concurrency, Feed feed) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("system", "AX");
        boolean onPg = !"h2".equalsIgnoreCase(db);
        out.put("database", onPg ? "PostgreSQL" : "H2");
        out.put("tasks", tasks);
        out.put("concurrency", concurrency);
        out.put("feed", feed.name());
        Path dir = AxServers.tempDir("ax-bench-runs");
        Window w = new Window(pg, onPg ? "ax_bench" : "postgres");
        try (AxServer server = AxServers.start(pg, onPg ? "ax_bench" : null, dir, true, concurrency)) {
            for (int k = 0; k < tasks; k++) {
                Map<String, Object> json =
                        new LinkedHashMap<>(AxHarness.task("sh-" + k, Map.of("type", "event"), "ALLOW"));
                json.put("action", action);
                server.node().tasks().create(json, "bench");
            }
            AtomicBoolean running = new AtomicBoolean(true);
            AtomicLong triggered = new AtomicLong();
            AtomicLong samples = new AtomicLong();
            AtomicLong activeSum = new AtomicLong();
            // Keeps the executor busy: tops the waiting + running runs up to 4 x its concurrency, from up to 8 feeder
            // threads (one trigger is a transaction: a few feeder threads could become the limit). One thread counts
            // them every 10 ms for all feeders: counting from each feeder as often cost PostgreSQL a tenth of a core.
            // Each
            // state is counted on its own partial index: "state IN ('READY', 'RUNNING')" read the (state, id) index,
            // whose
            // entries of every run's earlier versions wait for vacuum (7 ms a count with 250 runs waiting, 0.3 ms this
            // way).
            AtomicLong active = new AtomicLong();
            Thread counter = Thread.ofPlatform().daemon(true).start(() -> {
                while (running.get()) {
                    long n = AxServers.scalar(
                            server,
                            "SELECT (SELECT COUNT(*) FROM ax_instance WHERE state = 'READY')"
                                    + " + (SELECT COUNT(*) FROM ax_instance WHERE state = 'RUNNING')");
                    active.set(n);
                    samples.incrementAndGet();
                    activeSum.addAndGet(n);
                    Window.sleep(10);
                }
            });
            int feeders = feed == Feed.fired ? 0 : Math.min(tasks, 8);
            List<Thread> feederThreads = new ArrayList<>();
            feederThreads.add(counter);
            if (feed == Feed.fired) {
                List<TaskRow> rows = new ArrayList<>();
                for (int k = 0; k < tasks; k++) {
                    String name = "sh-" + k;
                    rows.add(server.store()
                            .tx(tx -> server.store().tasks().find(tx, name).orElseThrow()));
                }
                feederThreads.add(Thread.ofPlatform().daemon(true).start(() -> {
                    long k = 0;
                    while (running.get()) {
                        long deficit = 4L * concurrency - active.get();
                        if (deficit > 0) {
                            long first = k;
                            // Due now by the database's clock, as the firing loop writes them (ready_at =
                            // scheduled_at).
                            server.store().tx(tx -> {
                                Instant now = tx.now();
                                List<NewRun> batch = new ArrayList<>();
                                for (long i = first; i < first + deficit; i++) {
                                    TaskRow t = rows.get((int) (i % tasks));
                                    batch.add(new NewRun(
                                            t.id(),
                                            t.name(),
                                            t.version(),
                                            Cause.EVENT,
                                            "event:bench-" + i,
                                            now,
                                            Map.of(),
                                            RunState.READY,
                                            1,
                                            "default",
                                            "bench",
                                            "bench-feeder",
                                            null,
                                            null,
                                            null));
                                }
                                return server.store().runBatches().createAll(tx, batch);
                            });
                            k += deficit;
                            active.addAndGet(deficit);
                            triggered.addAndGet(deficit);
                        }
                        Window.sleep(2);
                    }
                }));
            }
            for (int f = 0; f < feeders; f++) {
                int first = f;
                feederThreads.add(Thread.ofPlatform().daemon(true).start(() -> {
                    long k = first;
                    while (running.get()) {
                        // A trigger adds itself to the count, so feeders do not overshoot between counts.
                        while (active.get() < 4L * concurrency && running.get()) {
                            server.node().tasks().trigger("sh-" + (k % tasks), Map.of(), Cause.EVENT, "bench");
                            active.incrementAndGet();
                            k += feeders;
                            triggered.incrementAndGet();
                        }
                        Window.sleep(5);
                    }
                }));
            }
            w.measure(opts.warmup(), opts.measure());
            long t0 = w.t0Millis;
            long t1 = w.t1Millis;
            long n = AxServers.scalar(
                    server,
                    "SELECT COUNT(*) FROM ax_instance WHERE state = 'SUCCESS' AND finished_at >= ? AND finished_at < ?",
                    Instant.ofEpochMilli(t0),
                    Instant.ofEpochMilli(t1));
            long failed = AxServers.scalar(
                    server, "SELECT COUNT(*) FROM ax_instance WHERE state NOT IN ('SUCCESS', 'READY', 'RUNNING')");
            running.set(false);
            for (Thread feeder : feederThreads) {
                feeder.join(5000);
            }
            out.put("runsInWindow", n);
            out.put("runsPerSecond", W1Stats.round(n / w.seconds()));
            out.put("notSucceeded", failed);
            out.put("triggered", triggered.get());
            // Close to 4 x concurrency means the executor, not the feeder, set the pace.
            out.put("meanReadyOrRunning", W1Stats.round((double) activeSum.get() / Math.max(1, samples.get())));
            out.put("loopErrors", server.node().loopErrors());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            AxServers.deleteTree(dir);
        }
        out.put("jvmCpuCores", Window.round2(w.jvmCores()));
        out.put("postgresCpuCores", Window.round2(w.pgCores()));
        out.put("boxCpuCores", Window.round2(w.boxCores()));
        if (out.get("runsPerSecond") instanceof Double rate && rate > 0) {
            out.put("boxCpuMsPerRun", Window.round2(w.boxCores() * 1000 / rate));
        }
        out.put("jvmRssBytes", w.rssBytes);
        out.put("loadAverageAtStart", w.loadAtStart);
        return out;
    }
}
