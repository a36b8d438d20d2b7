package dev.ax.bench;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The HTTP load generator {@code wrk} (a process of its own, so the measured JVM holds only the
 * server): a closed loop of {@code connections} clients for a number of seconds, each request one
 * of {@code bodies} in turn. Its Lua script counts the answers whose status is not the one
 * expected and prints the totals on one line.
 */
final class Wrk {
    private Wrk() {}

    /** What one wrk run counted: answers with the expected status, the others, socket errors, latency in microseconds. */
    record Result(
            long ok,
            long wrongStatus,
            long socketErrors,
            double seconds,
            long p50Micros,
            long p99Micros,
            long maxMicros) {}

    /** Whether {@code wrk} is on the PATH. */
    static boolean installed() {
        return Arrays.stream(System.getenv().getOrDefault("PATH", "").split(File.pathSeparator))
                .anyMatch(dir -> !dir.isEmpty() && Files.isExecutable(Path.of(dir, "wrk")));
    }

    static Result run(
            URI uri,
            String method,
            Map<String, String> headers,
            List<String> bodies,
            int expectedStatus,
            int connections,
            int seconds) {
        Path script;
        try {
            script = Files.createTempFile("ax-bench-wrk", ".lua");
            Files.writeString(script, script(method, headers, bodies, expectedStatus));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        try {
            int threads = Math.max(1, Math.min(connections, Runtime.getRuntime().availableProcessors()));
            List<String> cmd = List.of(
                    "wrk",
                    "-t" + threads,
                    "-c" + connections,
                    "-d" + seconds + "s",
                    "--timeout",
                    "30s",
                    "-s",
                    script.toString(),
                    uri.toString());
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            int exit = p.waitFor();
            String line = out.lines()
                    .filter(l -> l.startsWith("AXBENCH "))
                    .findFirst()
                    .orElseThrow(
                            () -> new IllegalStateException("wrk exited " + exit + " without its totals:\n" + out));
            Map<String, Long> v = Arrays.stream(
                            line.substring("AXBENCH ".length()).split(" "))
                    .map(kv -> kv.split("="))
                    .collect(Collectors.toMap(
                            kv -> kv[0], kv -> Long.parseLong(kv[1]), (a, b) -> b, LinkedHashMap::new));
            long answered = v.get("requests");
            return new Result(
                    answered - v.get("wrong"),
                    v.get("wrong"),
                    v.get("socket"),
                    v.get("micros") / 1e6,
                    v.get("p50"),
                    v.get("p99"),
                    v.get("max"));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run wrk: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } finally {
            try {
                Files.deleteIfExists(script);
            } catch (IOException e) {
                // a temporary file left behind
            }
        }
    }

    /** The Lua script: the request's method, headers and bodies; a per-thread count of unexpected statuses; one line of totals. */
    static String script(String method, Map<String, String> headers, List<String> bodies, int expectedStatus) {
        List<String> lines = new ArrayList<>();
        lines.add("wrk.method = " + lua(method));
        headers.forEach((k, v) -> lines.add("wrk.headers[" + lua(k) + "] = " + lua(v)));
        if (!bodies.isEmpty()) {
            lines.add("local bodies = {" + bodies.stream().map(Wrk::lua).collect(Collectors.joining(", ")) + "}");
            lines.add("wrk.body = bodies[1]");
            if (bodies.size() > 1) {
                lines.add("local next_body = 0");
                lines.add("request = function()");
                lines.add("  next_body = next_body % #bodies + 1");
                lines.add("  return wrk.format(nil, nil, nil, bodies[next_body])");
                lines.add("end");
            }
        }
        lines.add("local threads = {}");
        lines.add("setup = function(thread) table.insert(threads, thread) end");
        lines.add("init = function(args) wrong = 0 end");
        lines.add("response = function(status, headers, body) if status ~= " + expectedStatus
                + " then wrong = wrong + 1 end end");
        lines.add("done = function(summary, latency, requests)");
        lines.add("  local wrong = 0");
        lines.add("  for _, t in ipairs(threads) do wrong = wrong + t:get(\"wrong\") end");
        lines.add("  local e = summary.errors");
        lines.add(
                "  io.write(string.format(\"AXBENCH requests=%d wrong=%d socket=%d micros=%d p50=%d p99=%d max=%d\\n\","
                        + " summary.requests, wrong, e.connect + e.read + e.write + e.timeout, summary.duration,"
                        + " latency:percentile(50), latency:percentile(99), latency.max))");
        lines.add("end");
        return String.join("\n", lines) + "\n";
    }

    /** A Lua string literal. */
    private static String lua(String s) {
        return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n") + "\"";
    }
}
