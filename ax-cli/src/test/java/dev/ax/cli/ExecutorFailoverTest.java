package dev.ax.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ax.store.TestDatabases;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ax executor --server URL1,URL2} moves to the other node when its node stops answering, and keeps its leases
 * there: two `ax server` processes without executors of their own share one PostgreSQL, a remote executor talks to the
 * first, and the first is SIGKILLed while the executor runs a twenty-second body. The run must end SUCCESS on its first
 * attempt, never declared lost.
 */
class ExecutorFailoverTest {
    private static final String ADMIN_TOKEN = "failover-admin-token";
    private static final String GROUP = "failover";
    /**
     * Short, so that an executor that did not move on would lose its lease long before the body ends; not shorter,
     * because on a loaded machine (two test JVMs, each starting nodes) moving to the other node takes seconds.
     */
    private static final Duration LEASE = Duration.ofSeconds(8);

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Path LOGS = Path.of("target", "failover-logs");

    @TempDir
    Path dir;

    final Map<String, Process> processes = new LinkedHashMap<>();
    final HttpClient http = HttpClient.newHttpClient();

    @AfterEach
    void cleanUp() {
        for (Process p : processes.values()) {
            p.toHandle().descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
        }
    }

    @Test
    void an_executor_whose_node_is_killed_mid_run_goes_on_with_the_other_node_and_keeps_its_run() throws Exception {
        deleteLogs();
        String dbUrl = TestDatabases.postgres().url();
        int port1 = freePort();
        int port2 = freePort();
        start("n1", server("n1", port1, dbUrl));
        start("n2", server("n2", port2, dbUrl));
        awaitHealthy(port1);
        awaitHealthy(port2);

        // A real executor token, limited to the group, rather than the admin's: what a deployment would give it.
        HttpResponse<String> made =
                post(port2, "/api/tokens", Map.of("name", "e1", "role", "executor", "groups", List.of(GROUP)));
        assertThat(made.statusCode()).as(made.body()).isEqualTo(201);
        String executorToken = JSON.readTree(made.body()).get("token").asText();

        // n1 first: the executor talks to n1 until n1 stops answering.
        start(
                "e1",
                List.of(
                        "executor",
                        "--server",
                        "http://127.0.0.1:" + port1 + ",http://127.0.0.1:" + port2,
                        "--token",
                        executorToken,
                        "--id",
                        "e1",
                        "--group",
                        GROUP));

        // Two retries, without delay: a run lost with n1 would come back as a second attempt, not end as a failure.
        Map<String, Object> task = Map.of(
                "taskName",
                "long",
                "trigger",
                Map.of("type", "event"),
                "action",
                Map.of("type", "shell", "command", "sleep 20; echo done", "group", GROUP),
                "policy",
                Map.of("maxRetries", 2, "retryIntervalSeconds", 0));
        HttpResponse<String> created = post(port2, "/api/tasks", task);
        assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
        HttpResponse<String> triggered = post(port2, "/api/tasks/long/trigger", Map.of());
        assertThat(triggered.statusCode()).as(triggered.body()).isEqualTo(202);
        long run = JSON.readTree(triggered.body()).get("instanceId").asLong();

        // The body runs on e1, which got it from n1: now n1 dies without a word.
        await().atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(100))
                .ignoreExceptions()
                .until(() -> {
                    JsonNode r = get(port2, "/api/runs/" + run);
                    return r.get("state").asText().equals("RUNNING")
                            && r.get("executorId").asText().equals("e1");
                });
        long killedAt = System.nanoTime();
        new ProcessBuilder("kill", "-KILL", Long.toString(processes.get("n1").pid()))
                .start()
                .waitFor();
        processes.get("n1").waitFor();

        // The body has about twenty seconds left, more than two leases: it can end well only if e1 renews them on n2.
        // Waits until the first attempt is over, ended or lost (then back to READY or RETRYING, where its retry might
        // wait for ever): the assertions below tell which, rather than a timeout.
        await().atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(250))
                .ignoreExceptions()
                .until(() ->
                        !get(port2, "/api/runs/" + run).get("state").asText().equals("RUNNING"));
        JsonNode ended = get(port2, "/api/runs/" + run);
        List<String> events = new ArrayList<>();
        for (JsonNode e : get(port2, "/api/runs/" + run + "/events?limit=100").get("items")) {
            events.add(e.get("type").asText());
        }
        String story = "run " + ended + "\nevents " + events + "\n(process logs in " + LOGS.toAbsolutePath() + ")";
        assertThat(ended.get("state").asText()).as(story).isEqualTo("SUCCESS");
        assertThat(ended.get("attempt").asInt()).as(story).isEqualTo(1);
        assertThat(ended.get("executorId").asText()).as(story).isEqualTo("e1");
        // A lost lease shows as EXECUTOR_LOST, then RETRY_READY (no retry interval) or RETRY_SCHEDULED.
        assertThat(events).as(story).doesNotContain("EXECUTOR_LOST", "RETRY_SCHEDULED", "RETRY_READY");
        assertThat(Duration.ofNanos(System.nanoTime() - killedAt))
                .as("the run went on for more than a lease after n1 died (else this proved nothing)")
                .isGreaterThan(LEASE);
    }

    // ---- the deployment ----------------------------------------------------------------------------

    /** A node without an executor of its own: only the remote executor can run the body. */
    private List<String> server(String id, int port, String dbUrl) {
        return List.of(
                "server",
                "--port",
                Integer.toString(port),
                "--node-id",
                id,
                "--data-dir",
                dir.resolve(id).toString(),
                "--db-url",
                dbUrl,
                "--lease",
                LEASE.toString(),
                "--no-executor");
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
        ProcessBuilder pb = new ProcessBuilder(argv)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(
                        Files.createDirectories(LOGS).resolve(name + ".log").toFile()));
        pb.environment().put("AX_ADMIN_TOKEN", ADMIN_TOKEN);
        processes.put(name, pb.start());
    }

    private static void deleteLogs() throws IOException {
        if (Files.isDirectory(LOGS)) {
            try (var files = Files.list(LOGS)) {
                for (Path f : files.toList()) {
                    Files.delete(f);
                }
            }
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    private HttpResponse<String> post(int port, String path, Object body) throws Exception {
        return new NodeApi(http, port, ADMIN_TOKEN).post(path, JSON.writeValueAsString(body));
    }

    private JsonNode get(int port, String path) throws Exception {
        return new NodeApi(http, port, ADMIN_TOKEN).get(path);
    }

    private void awaitHealthy(int port) {
        new NodeApi(http, port, ADMIN_TOKEN).awaitHealthy();
    }
}
