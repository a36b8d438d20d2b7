package dev.ax.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** Runs a hidden subcommand of this jar in a fresh JVM (start-up and memory must not see this JVM's warm state). */
final class ChildJvm {
    private ChildJvm() {}

    record Answer(String line, long wallMillis, long pid) {}

    /**
     * Starts {@code java <jvmOptions> -cp <this class path> dev.ax.bench.Main <args>}, by default with
     * no JVM options (as {@code ./ax server} runs without AX_JAVA_OPTS), and returns the first line starting
     * with {@code marker}, with the wall time from launch to that line.
     */
    static Answer run(String marker, long timeoutMillis, List<String> jvmOptions, String... args) {
        String java = ProcessHandle.current().info().command().orElse(System.getProperty("java.home") + "/bin/java");
        List<String> cmd = new ArrayList<>(List.of(java));
        cmd.addAll(jvmOptions);
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), Main.class.getName()));
        cmd.addAll(List.of(args));
        long start = System.nanoTime();
        Process p;
        try {
            p = new ProcessBuilder(cmd)
                    .redirectError(ProcessBuilder.Redirect.INHERIT)
                    .start();
        } catch (IOException e) {
            throw new IllegalStateException("cannot start a child JVM: " + e.getMessage(), e);
        }
        Thread killer = Thread.ofPlatform().daemon(true).start(() -> {
            try {
                Thread.sleep(timeoutMillis);
                p.destroyForcibly();
            } catch (InterruptedException e) {
                // done in time
            }
        });
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            Optional<Answer> found = Optional.empty();
            while ((line = r.readLine()) != null) {
                if (found.isEmpty() && line.startsWith(marker)) {
                    found = Optional.of(new Answer(
                            line.substring(marker.length()).strip(), (System.nanoTime() - start) / 1_000_000, p.pid()));
                }
            }
            p.waitFor();
            return found.orElseThrow(() -> new IllegalStateException(
                    "child " + String.join(" ", args) + " exited " + p.exitValue() + " without a " + marker + " line"));
        } catch (IOException e) {
            throw new IllegalStateException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } finally {
            killer.interrupt();
        }
    }
}
