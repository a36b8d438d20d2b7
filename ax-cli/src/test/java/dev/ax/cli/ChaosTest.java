package dev.ax.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.postgresql.util.PGInterval;

/**
 * Faults against a real deployment: two `ax server` processes on one PostgreSQL, a remote `ax executor` given both
 * nodes (it talks to the first, and to the second when the first stops answering), and the
 * second node's in-process executor, running a task due every two seconds whose body takes ten, longer than two leases. One after the
 * other, each while a body runs where it strikes: SIGKILL of the node the remote executor talks to, SIGKILL of the
 * executor, a PostgreSQL restart, and SIGSTOP of the other node for three leases. Counted per slot afterwards: exactly one run, exactly one body that
 * finished, and never two bodies alive at once (each body holds a lock on its slot, which the kernel frees when the
 * process dies; a second body of the slot finding it taken records a twin).
 */
class ChaosTest {
    private static final String TOKEN = "chaos-admin-token";
    private static final Duration LEASE = Duration.ofSeconds(4);
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    EmbeddedPostgres pg;
    int pgPort;
    final Map<String, Process> processes = new LinkedHashMap<>();
    final HttpClient http = HttpClient.newHttpClient();

    @AfterEach
    void cleanUp() throws IOException {
        for (Process p : processes.values()) {
            kill("-CONT", p);
            p.toHandle().descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
        }
        if (pg != null) {
            pg.close();
        }
    }

    @Test
    void every_slot_runs_once_and_no_body_runs_twice_through_kills_a_database_restart_and_a_stopped_node()
            throws Exception {
        deleteLogs();
        pgPort = freePort();
        startPostgres();
        int port1 = freePort();
        int port2 = freePort();
        start("n1", server("n1", port1, true));
        start("n2", server("n2", port2, false));
        awaitHealthy(port1);
        awaitHealthy(port2);
        start("e1", executor(port1, port2));

        Path bodies = dir.resolve("bodies");
        Path locks = Files.createDirectories(dir.resolve("locks"));
        Files.createFile(bodies);
        String body = "echo start $AX_SCHEDULED_AT $AX_ATTEMPT >> " + bodies
                + "; sleep 10; echo end $AX_SCHEDULED_AT $AX_ATTEMPT >> " + bodies;
        String command = "flock -n " + locks + "/\"$AX_SCHEDULED_AT\" sh -c '" + body
                + "' || echo twin $AX_SCHEDULED_AT $AX_ATTEMPT >> " + bodies;
        Map<String, Object> task = Map.of(
                "taskName",
                "tick",
                "trigger",
                Map.of("type", "cron", "expression", "*/2 * * * * *"),
                "action",
                Map.of("type", "shell", "command", command),
                "policy",
                Map.of("maxRetries", 10, "retryIntervalSeconds", 0, "overflow", "ALLOW", "misfire", "FIRE_ALL"));
        assertThat(post(port2, "/api/tasks", JSON.writeValueAsString(task)).statusCode())
                .isEqualTo(201);
        awaitSuccesses(port2, 3);

        // 1. The node the remote executor talks to dies mid-fire; it comes back a few seconds later.
        awaitRunningOn(port2, "e1");
        kill("-KILL", processes.get("n1")).waitFor();
        quiet(Duration.ofSeconds(6));
        start("n1", server("n1", port1, true));
        awaitHealthy(port1);
        quiet(Duration.ofSeconds(4));

        // 2. The remote executor dies mid-run: its reaper kills the body at once.
        awaitRunningOn(port2, "e1");
        kill("-KILL", processes.get("e1")).waitFor();
        quiet(Duration.ofSeconds(2));
        start("e1", executor(port1, port2));
        quiet(Duration.ofSeconds(4));

        // 3. PostgreSQL restarts.
        pg.close();
        quiet(Duration.ofSeconds(2));
        startPostgres();
        awaitHealthy(port1);
        awaitHealthy(port2);
        quiet(Duration.ofSeconds(4));

        // 4. The second node (with its in-process executor) is stopped for three leases, then wakes up.
        awaitRunningOn(port1, "n2-local");
        Process n2 = processes.get("n2");
        System.out.println("chaos: stopping n2 at "
                + sql("SELECT now()", r -> r.next() ? r.getTimestamp(1).toInstant() : null));
        kill("-STOP", n2).waitFor();
        quiet(LEASE.multipliedBy(3));
        kill("-CONT", n2).waitFor();
        awaitHealthy(port2);
        quiet(Duration.ofSeconds(4));

        assertThat(post(port1, "/api/tasks/tick/pause", "").statusCode()).isEqualTo(200);
        // A run created ahead of a slot after the pause is canceled by it: the count stops at the pause.
        Instant pausedAt = sql("SELECT now()", r -> r.next() ? r.getTimestamp(1).toInstant() : null);
        await().atMost(Duration.ofSeconds(90))
                .pollInterval(Duration.ofMillis(500))
                .until(() -> unfinishedRuns() == 0);
        quiet(Duration.ofSeconds(2)); // a cut-off body's last line, had it one, would be written by now

        Map<String, List<String>> runs = runsBySlot();
        runs.keySet().removeIf(slot -> Instant.parse(slot).isAfter(pausedAt));
        List<String> lines = Files.readAllLines(bodies);
        Map<String, Integer> ends = new TreeMap<>();
        List<String> twins = new ArrayList<>();
        for (String line : lines) {
            String[] f = line.split(" ");
            if (f[0].equals("end")) {
                ends.merge(f[1], 1, Integer::sum);
            } else if (f[0].equals("twin")) {
                twins.add(line);
            }
        }
        assertThat(twins).as("two bodies of one slot alive at once").isEmpty();
        assertThat(runs).isNotEmpty();
        int finishedUnreported = 0;
        for (Map.Entry<String, List<String>> run : runs.entrySet()) {
            String slot = run.getKey();
            String story = story(slot, lines);
            assertThat(run.getValue()).as("runs of slot %s\n%s", slot, story).containsExactly("SUCCESS");
            int finished = ends.getOrDefault(Instant.parse(slot).toString(), 0);
            assertThat(finished)
                    .as("bodies of slot %s that finished\n%s", slot, story)
                    .isPositive();
            if (finished > 1) {
                assertThat(lostAttemptsOf(slot))
                        .as("attempts of slot %s lost with their executor\n%s", slot, story)
                        .isGreaterThanOrEqualTo(finished - 1);
                finishedUnreported += finished - 1;
            }
        }
        assertThat(consecutiveSlots(runs.keySet()))
                .as("no slot missed between the first and the last")
                .isTrue();
        assertThat(lostAttempts())
                .as("the faults cut off running bodies (else this proved nothing)")
                .isGreaterThanOrEqualTo(3);
        for (String slot : runs.keySet()) {
            if (lostAttemptsOf(slot) > 0) {
                System.out.println("chaos: a lost run of slot " + slot + "\n" + story(slot, lines));
            }
        }
        System.out.println("chaos: " + runs.size() + " slots, " + lostAttempts() + " attempts lost and retried ("
                + finishedUnreported
                + " of them had finished as their executor lost them), slowest retry of a lost run began "
                + slowestRecovery()
                + " after its attempt was declared lost");
    }

    // ---- the deployment ----------------------------------------------------------------------------

    private void startPostgres() throws IOException {
        pg = EmbeddedPostgres.builder()
                .setPort(pgPort)
                .setDataDirectory(dir.resolve("pgdata"))
                .setCleanDataDirectory(false)
                .start();
    }

    private String jdbcUrl() {
        return "jdbc:postgresql://127.0.0.1:" + pgPort + "/postgres?user=postgres";
    }

    private List<String> server(String id, int port, boolean noExecutor) {
        List<String> args = new ArrayList<>(List.of(
                "server",
                "--port",
                Integer.toString(port),
                "--node-id",
                id,
                "--data-dir",
                dir.resolve(id).toString(),
                "--db-url",
                jdbcUrl(),
                "--lease",
                LEASE.toString()));
        if (noExecutor) {
            args.add("--no-executor");
        } else {
            args.addAll(
                    List.of("--executor-concurrency", "1")); // busy every other slot: the remote executor gets the rest
        }
        return args;
    }

    /** The remote executor talks to the given node first, and to the other when that one stops answering. */
    private List<String> executor(int port, int otherPort) {
        return List.of(
                "executor",
                "--server",
                "http://127.0.0.1:" + port + ",http://127.0.0.1:" + otherPort,
                "--token",
                TOKEN,
                "--id",
                "e1",
                "--concurrency",
                "8"); // room for every retry at once: a lost run restarts as soon as the server lets it
    }

    private void start(String name, List<String> args) throws IOException {
        List<String> argv = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m",
                "-cp",
                System.getProperty("java.class.path"),
                Main.class.getName()));
        argv.addAll(args);
        // The processes' logs stay after the test, to read when it fails.
        Path logs = Files.createDirectories(Path.of("target", "chaos-logs"));
        ProcessBuilder pb = new ProcessBuilder(argv)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(
                        logs.resolve(name + ".log").toFile()));
        pb.environment().put("AX_ADMIN_TOKEN", TOKEN);
        processes.put(name, pb.start());
    }

    private static void deleteLogs() throws IOException {
        Path logs = Path.of("target", "chaos-logs");
        if (Files.isDirectory(logs)) {
            try (var files = Files.list(logs)) {
                for (Path f : files.toList()) {
                    Files.delete(f);
                }
            }
        }
    }

    private static Process kill(String signal, Process p) throws IOException {
        return new ProcessBuilder("kill", signal, Long.toString(p.pid())).start();
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    /** Lets the deployment run for a while: the point of the test is what happens meanwhile. */
    private static void quiet(Duration d) {
        await().pollDelay(d).atMost(d.plusSeconds(1)).until(() -> true);
    }

    private HttpResponse<String> post(int port, String path, String body) throws Exception {
        return new NodeApi(http, port, TOKEN).post(path, body);
    }

    private JsonNode get(int port, String path) throws Exception {
        return new NodeApi(http, port, TOKEN).get(path);
    }

    private void awaitHealthy(int port) {
        new NodeApi(http, port, TOKEN).awaitHealthy();
    }

    private void awaitSuccesses(int port, int n) {
        await().atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() -> {
            int ok = 0;
            for (JsonNode run : get(port, "/api/instances?task=tick&limit=100").get("items")) {
                ok += run.get("state").asText().equals("SUCCESS") ? 1 : 0;
            }
            return ok >= n;
        });
    }

    /**
     * Until the executor has just started a body (within the last second): a fault now cuts off a body that, left alone,
     * would still run when the server hands the run to another executor.
     */
    private void awaitRunningOn(int port, String executor) {
        await().atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(100))
                .ignoreExceptions()
                .until(() -> {
                    Instant now =
                            Instant.parse(get(port, "/healthz").get("dbTime").asText());
                    for (JsonNode run : get(port, "/api/instances?task=tick&state=RUNNING&limit=100")
                            .get("items")) {
                        if (executor.equals(run.path("executorId").asText())
                                && run.hasNonNull("startedAt")
                                && Instant.parse(run.get("startedAt").asText()).isAfter(now.minusSeconds(1))) {
                            return true;
                        }
                    }
                    return false;
                });
    }

    // ---- what happened, from the database -----------------------------------------------------------

    private <T> T sql(String query, SqlRead<T> read) throws Exception {
        try (Connection c = DriverManager.getConnection(jdbcUrl());
                ResultSet r = c.createStatement().executeQuery(query)) {
            return read.read(r);
        }
    }

    private interface SqlRead<T> {
        T read(ResultSet r) throws Exception;
    }

    private int unfinishedRuns() throws Exception {
        return sql(
                "SELECT COUNT(*) FROM ax_instance WHERE state NOT IN ('SUCCESS', 'FAILED', 'CANCELED', 'SKIPPED', 'TERMINATED')",
                r -> r.next() ? r.getInt(1) : 0);
    }

    private Map<String, List<String>> runsBySlot() throws Exception {
        return sql("SELECT fire_key, state FROM ax_instance WHERE task_name = 'tick' ORDER BY fire_key", r -> {
            Map<String, List<String>> out = new TreeMap<>();
            while (r.next()) {
                out.computeIfAbsent(r.getString(1), k -> new ArrayList<>()).add(r.getString(2));
            }
            return out;
        });
    }

    private static boolean consecutiveSlots(Set<String> slots) {
        List<Instant> sorted = slots.stream().map(Instant::parse).sorted().toList();
        for (int i = 1; i < sorted.size(); i++) {
            if (!Duration.between(sorted.get(i - 1), sorted.get(i)).equals(Duration.ofSeconds(2))) {
                return false;
            }
        }
        return true;
    }

    /** What happened to a slot's run and bodies, for a failure's message. */
    private String story(String slot, List<String> bodyLines) throws Exception {
        StringBuilder out = new StringBuilder();
        bodyLines.stream()
                .filter(l -> l.contains(" " + Instant.parse(slot) + " "))
                .forEach(l -> out.append("  body: ").append(l).append('\n'));
        return out
                + sql(
                        "SELECT e.at, e.type, e.attempt, e.actor, e.node_id, e.message FROM ax_event e JOIN ax_instance i ON i.id = e.instance_id"
                                + " WHERE i.task_name = 'tick' AND i.fire_key = '" + slot + "' ORDER BY e.id",
                        r -> {
                            StringBuilder events = new StringBuilder();
                            while (r.next()) {
                                events.append("  ")
                                        .append(r.getTimestamp(1).toInstant())
                                        .append(' ')
                                        .append(r.getString(2))
                                        .append(" attempt ")
                                        .append(r.getInt(3))
                                        .append(' ')
                                        .append(r.getString(4))
                                        .append('@')
                                        .append(r.getString(5))
                                        .append(": ")
                                        .append(r.getString(6))
                                        .append('\n');
                            }
                            return events.toString();
                        });
    }

    private int lostAttemptsOf(String slot) throws Exception {
        return sql(
                "SELECT COUNT(*) FROM ax_event e JOIN ax_instance i ON i.id = e.instance_id WHERE i.task_name = 'tick'"
                        + " AND i.fire_key = '" + slot + "' AND e.type = 'EXECUTOR_LOST'",
                r -> r.next() ? r.getInt(1) : 0);
    }

    private int lostAttempts() throws Exception {
        return sql("SELECT COUNT(*) FROM ax_event WHERE type = 'EXECUTOR_LOST'", r -> r.next() ? r.getInt(1) : 0);
    }

    /** The longest time from a lost attempt to the start of the next one. */
    private Duration slowestRecovery() throws Exception {
        return sql(
                "SELECT MAX(s.at - l.at) FROM ax_event l JOIN ax_event s ON s.instance_id = l.instance_id AND s.type = 'STARTED'"
                        + " AND s.attempt = l.attempt + 1 WHERE l.type = 'EXECUTOR_LOST'",
                r -> {
                    if (!r.next() || r.getString(1) == null) {
                        return Duration.ZERO;
                    }
                    PGInterval i = (PGInterval) r.getObject(1);
                    return Duration.ofMillis(Math.round(
                            ((i.getDays() * 24 + i.getHours()) * 3600 + i.getMinutes() * 60 + i.getSeconds()) * 1000));
                });
    }
}
