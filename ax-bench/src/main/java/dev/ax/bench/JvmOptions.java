package dev.ax.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

/** The JVM options {@code ./ax} starts AX with ({@code jvm.options} in the checkout): the measured JVMs use the same. */
final class JvmOptions {
    static final Path FILE = Path.of("jvm.options");

    private JvmOptions() {
    }

    /** The options of {@link #FILE} (one per line, {@code #} comments), or none when the file is not there. */
    static List<String> ofAx() {
        if (!Files.isRegularFile(FILE)) {
            return List.of();
        }
        try {
            return Files.readAllLines(FILE).stream().map(l -> l.replaceAll("#.*", "").strip()).filter(l -> !l.isEmpty())
                    .flatMap(l -> Arrays.stream(l.split("\\s+"))).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
