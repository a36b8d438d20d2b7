package dev.ax.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/** The JVM options {@code ./ax} starts AX with ({@code jvm.options} in the checkout): the measured JVMs use the same. */
final class JvmOptions {
    private JvmOptions() {}

    /**
     * The options of the checkout's {@code jvm.options} (one per line, {@code #} comments). Refuses
     * when there is none: a start-up or memory figure taken with the JVM's own defaults is not the
     * one {@code ./ax} gives (the defaults' heap is a quarter of the machine's memory).
     */
    static List<String> ofAx() {
        Path file = file().orElseThrow(
                        () -> new IllegalStateException(
                                "no jvm.options in " + Path.of("").toAbsolutePath()
                                        + " or in the checkout of "
                                        + jar().map(Path::toString).orElse("this jar")
                                        + ": start-up and memory are measured with"
                                        + " the options ./ax uses; run from the checkout (ax-bench/run does), or give memory --child-jvm-opts"));
        try {
            return Files.readAllLines(file).stream()
                    .map(l -> l.replaceAll("#.*", "").strip())
                    .filter(l -> !l.isEmpty())
                    .flatMap(l -> Arrays.stream(l.split("\\s+")))
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The checkout this runs from: the folder of its {@code jvm.options} (where {@code ./ax} is). */
    static Optional<Path> checkout() {
        return file().map(f -> f.toAbsolutePath().getParent()).filter(root -> Files.isExecutable(root.resolve("ax")));
    }

    /** {@code jvm.options} in the working directory, or in the checkout the jar was built in ({@code ax-bench/target/ax-bench.jar}). */
    private static Optional<Path> file() {
        Path here = Path.of("jvm.options");
        if (Files.isRegularFile(here)) {
            return Optional.of(here);
        }
        return jar().map(j -> j.toAbsolutePath().getParent())
                .map(Path::getParent)
                .map(Path::getParent)
                .map(root -> root.resolve("jvm.options"))
                .filter(Files::isRegularFile);
    }

    private static Optional<Path> jar() {
        try {
            return Optional.of(Path.of(JvmOptions.class
                    .getProtectionDomain()
                    .getCodeSource()
                    .getLocation()
                    .toURI()));
        } catch (URISyntaxException | RuntimeException e) {
            return Optional.empty();
        }
    }
}
