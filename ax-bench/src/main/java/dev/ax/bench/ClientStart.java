package dev.ax.bench;

import dev.ax.server.AxServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A client command as a person types it: {@code ./ax task list} of the checkout, a fresh JVM per call, against a
 * running server holding a few tasks; beside it the floor the machine sets, a JVM that starts and only prints its
 * version. With the launch script's client options, with and without the clients' class data sharing archive.
 */
final class ClientStart {
    private static final int TASKS = 20;

    private final BenchOptions opts;
    private final int tries;
    private final Path checkout;

    ClientStart(BenchOptions opts, int tries) {
        this.opts = opts;
        this.tries = tries;
        this.checkout = JvmOptions.checkout()
                .orElseThrow(() -> new IllegalStateException(
                        "client start-up runs the checkout's ./ax: run from the checkout (ax-bench/run does)"));
    }

    /** Medians, in milliseconds, of each way of running it. */
    record Figures(double[] jvmFloor, double[] noArchive, double[] archive) {}

    Figures measure() {
        Path dir = AxServers.tempDir("ax-bench-client");
        try (AxServer server = AxServers.start(null, null, dir, false)) {
            addTasks(server);
            String java = ProcessHandle.current().info().command().orElse("java");
            double[] floor = times(List.of(java, "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-version"), Map.of());
            List<String> taskList = List.of(
                    checkout.resolve("ax").toString(),
                    "task",
                    "list",
                    "--server",
                    server.url().toString());
            Map<String, String> env =
                    Map.of("AX_NO_BUILD", "1", "AX_TOKEN", AxServers.TOKEN, "JAVA_HOME", javaHome(java));
            double[] plain = times(taskList, with(env, "AX_CDS", "0"));
            run(taskList, env); // starts the training run that writes the clients' archive, when there is none yet
            awaitArchive();
            double[] shared = times(taskList, env);
            return new Figures(floor, plain, shared);
        } finally {
            AxServers.deleteTree(dir);
        }
    }

    private double[] times(List<String> command, Map<String, String> env) {
        run(command, env); // the first call warms the page cache; not counted
        double[] ms = new double[tries];
        for (int i = 0; i < tries; i++) {
            opts.awaitQuiet();
            long t = System.nanoTime();
            run(command, env);
            ms[i] = (System.nanoTime() - t) / 1e6;
        }
        return ms;
    }

    private static void run(List<String> command, Map<String, String> env) {
        ProcessBuilder pb = new ProcessBuilder(command).redirectOutput(ProcessBuilder.Redirect.DISCARD);
        pb.redirectError(ProcessBuilder.Redirect.DISCARD);
        pb.environment().putAll(env);
        try {
            Process p = pb.start();
            if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
                p.destroyForcibly();
                throw new IllegalStateException(String.join(" ", command) + " failed (exit "
                        + (p.isAlive() ? "none, killed" : p.exitValue()) + ")");
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Waits for the background training run to finish writing the archive (its marker file gone, an archive there). */
    private void awaitArchive() {
        Path target = checkout.resolve("ax-cli/target");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            try (Stream<Path> files = Files.list(target)) {
                List<String> names = files.map(f -> f.getFileName().toString()).toList();
                boolean training = names.stream().anyMatch(n -> n.startsWith("ax-cli-") && n.endsWith(".training"));
                boolean archive = names.stream().anyMatch(n -> n.startsWith("ax-cli-") && n.endsWith(".jsa"));
                if (archive && !training) {
                    return;
                }
                Thread.sleep(200);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
        throw new IllegalStateException("no clients' class data sharing archive in " + target + " after 60 s");
    }

    private static void addTasks(AxServer server) {
        for (int i = 0; i < TASKS; i++) {
            server.node()
                    .tasks()
                    .create(
                            AxHarness.task("report-" + i, Map.of("type", "cron", "expression", i + " 2 * * *"), null),
                            "bench");
        }
    }

    private static String javaHome(String java) {
        return Path.of(java).toAbsolutePath().getParent().getParent().toString();
    }

    private static Map<String, String> with(Map<String, String> env, String key, String value) {
        Map<String, String> m = new HashMap<>(env);
        m.put(key, value);
        return m;
    }
}
