package dev.ax.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** Every workload in turn, then the summary against the bar (BENCHMARKS.md). */
@Command(
        name = "all",
        description =
                "This box's limits, then every workload (W1 at 1,000 and 10,000 tasks, W2, shell, http, api, startup,"
                        + " memory, console), then the bar")
final class AllCommand implements Callable<Integer> {
    @Mixin
    BenchOptions opts = new BenchOptions();

    @Option(
            names = "--repeat",
            defaultValue = "1",
            description = "W1 runs per system; medians are reported (default ${DEFAULT-VALUE})")
    int repeat;

    @Option(names = "--markdown", description = "also print the tables as Markdown (for BENCHMARKS.md)")
    boolean markdown;

    @Override
    public Integer call() {
        long start = System.nanoTime();
        System.err.println("load average at start: " + Results.loadAverage());
        List<Table> tables = new ArrayList<>();
        List<Bar> bars = new ArrayList<>();
        List<Map<String, Object>> results = new ArrayList<>();
        List<String> failures = new ArrayList<>();

        BoxCommand box = new BoxCommand();
        box.opts = opts;
        step("box", box::run, tables, bars, results, failures);

        for (int n : new int[] {1000, 10_000}) {
            W1Command w1 = new W1Command();
            w1.opts = opts;
            w1.tasks = n;
            w1.systems = "ax,ax-mariadb,db-scheduler,quartz";
            w1.repeat = repeat;
            w1.axConsumers = 20; // as many poll threads as the anchors have workers
            w1.axBatch = 100;
            w1.axOverflow = "ALLOW";
            w1.threads = 20;
            w1.quartzBatch = 20;
            w1.dbsPollMillis = 100;
            step("w1 " + n, () -> w1.run(), tables, bars, results, failures);
        }
        W2Command w2 = new W2Command();
        w2.opts = opts;
        w2.runs = 100_000;
        w2.systems = "ax,ax-mariadb,db-scheduler";
        w2.axConsumers = 20;
        w2.axBatch = 100;
        w2.triggerThreads = 4;
        w2.triggerSeconds = opts.quick ? 5 : 10;
        w2.threads = 20;
        w2.dbsPollMillis = 100;
        w2.drainTimeout = opts.quick ? 60 : 120;
        step("w2", w2::run, tables, bars, results, failures);

        ShellCommand shell = new ShellCommand();
        shell.opts = opts;
        shell.db = "pg";
        step("shell", shell::run, tables, bars, results, failures);

        HttpCommand http = new HttpCommand();
        http.opts = opts;
        http.db = "pg";
        http.tasks = 8;
        step(
                "http",
                () -> {
                    try {
                        return http.run();
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                },
                tables,
                bars,
                results,
                failures);

        ApiCommand api = new ApiCommand();
        api.opts = opts;
        api.clients = 32;
        api.dbs = "h2,pg";
        api.eventTasks = 1;
        api.client = ApiCommand.Client.auto;
        step("api", api::run, tables, bars, results, failures);

        StartupCommand startup = new StartupCommand();
        startup.opts = opts;
        startup.tries = opts.quick ? 3 : 5;
        step("startup", startup::run, tables, bars, results, failures);

        MemoryCommand memory = new MemoryCommand();
        memory.opts = opts;
        memory.tasks = 10_000;
        memory.db = "h2";
        memory.settle = 10;
        step("memory", memory::run, tables, bars, results, failures);

        ConsoleCommand console = new ConsoleCommand();
        console.opts = opts;
        console.tasks = 10_000;
        console.runs = opts.quick ? 200_000 : 1_000_000;
        console.requests = opts.quick ? 10 : 20;
        step("console", console::run, tables, bars, results, failures);

        Table bar = Bar.table(bars);
        for (String f : failures) {
            bar.note("FAILED: " + f);
        }
        bar.note(String.format("whole suite: %.0f s", (System.nanoTime() - start) / 1e9));
        StringBuilder all = new StringBuilder();
        for (Table t : tables) {
            all.append(t.render()).append('\n');
        }
        all.append(bar.render());
        System.out.println(all);
        if (markdown) {
            for (Table t : tables) {
                System.out.println(t.markdown());
            }
            System.out.println(bar.markdown());
        }
        Map<String, Object> options = opts.toMap();
        options.put("repeat", repeat);
        List<Map<String, Object>> summary = new ArrayList<>();
        for (Bar b : bars) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("workload", b.workload());
            m.put("goal", b.goal());
            m.put("ax", b.ax());
            m.put("quartz", b.quartz());
            m.put("dbScheduler", b.dbScheduler());
            m.put("axVsQuartz", b.axVsQuartz());
            m.put("axVsDbScheduler", b.axVsDbScheduler());
            m.put("met", b.met());
            summary.add(m);
        }
        Map<String, Object> bundle = new LinkedHashMap<>();
        bundle.put("bar", summary);
        bundle.put("failures", failures);
        bundle.put("workloads", results);
        System.err.println("results: "
                + Results.write(opts.resultsDir, "all", options, List.of(bundle), all.toString(), opts.pg()));
        return failures.isEmpty() ? 0 : 1;
    }

    interface Step {
        W1Command.Outcome run();
    }

    private static void step(
            String name,
            Step step,
            List<Table> tables,
            List<Bar> bars,
            List<Map<String, Object>> results,
            List<String> failures) {
        try {
            W1Command.Outcome o = step.run();
            System.out.println(o.table().render());
            tables.add(o.table());
            bars.addAll(o.bars());
            results.addAll(o.results());
        } catch (RuntimeException e) {
            e.printStackTrace();
            failures.add(name + ": " + e);
        }
    }
}
