package dev.ax.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Writes one JSON file per workload run: what was measured, with which options, on which machine. */
final class Results {
    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
    private static final DateTimeFormatter STAMP =
            DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss").withZone(ZoneOffset.UTC);

    private Results() {}

    static Path write(
            Path dir,
            String workload,
            Map<String, Object> options,
            List<? extends Map<String, Object>> results,
            String table,
            Pg pg) {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("workload", workload);
        doc.put("finishedAt", Instant.now().toString());
        doc.put("machine", machine(pg));
        doc.put("options", options);
        doc.put("results", results);
        doc.put("table", table);
        try {
            Files.createDirectories(dir);
            Path file = dir.resolve(workload + "-" + STAMP.format(Instant.now()) + ".json");
            JSON.writeValue(file.toFile(), doc);
            return file;
        } catch (IOException e) {
            throw new IllegalStateException("cannot write results to " + dir + ": " + e.getMessage(), e);
        }
    }

    static Map<String, Object> machine(Pg pg) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("cpus", Runtime.getRuntime().availableProcessors());
        m.put("memTotalBytes", memTotal());
        m.put(
                "os",
                System.getProperty("os.name") + " " + System.getProperty("os.version") + " "
                        + System.getProperty("os.arch"));
        m.put("java", System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version"));
        m.put("maxHeapBytes", Runtime.getRuntime().maxMemory());
        // Other work on the box skews everything: the load average at the end of the workload says how much there was.
        m.put("loadAverage", loadAverage());
        if (pg != null) {
            m.put("postgresql", pg.version());
            m.put("postgresqlFsync", pg.setting("fsync"));
            m.put("postgresqlSynchronousCommit", pg.setting("synchronous_commit"));
        }
        return m;
    }

    /** The 1-minute load average, NaN off Linux. */
    static double load1() {
        try {
            return Double.parseDouble(loadAverage().split(" ")[0]);
        } catch (RuntimeException e) {
            return Double.NaN;
        }
    }

    static String loadAverage() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).strip();
        } catch (IOException e) {
            return "?";
        }
    }

    private static long memTotal() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/meminfo"))) {
                if (line.startsWith("MemTotal:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux
        }
        return -1;
    }
}
