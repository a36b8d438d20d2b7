package dev.ax.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ax.domain.run.Cause;
import dev.ax.domain.run.RunState;
import dev.ax.scheduler.SchedulerConfig;
import dev.ax.server.AxServer;
import dev.ax.server.ServerConfig;
import dev.ax.store.DbConfig;
import dev.ax.store.Json;
import dev.ax.store.RunRow;
import dev.ax.store.Store;
import dev.ax.store.TestDatabases;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SIGTERM, as systemd and Kubernetes send it, stops a server node or an executor in order: the node fires and hands
 * out nothing more and says {@code draining} on /healthz (503) while its runs end; then it exits 0. A run going on at
 * the signal ends SUCCESS on its first attempt instead of being cut off and retried.
 */
class GracefulStopTest {
    static final String TOKEN = "graceful-stop-admin-token";
    static final String SLOW = "sleep 3; echo done";

    @TempDir
    Path dir;

    final List<Process> processes = new ArrayList<>();
    AxServer server;

    @AfterEach
    void cleanUp() {
        processes.forEach(p -> {
            p.toHandle().descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
        });
        if (server != null) {
            server.close();
        }
    }

    Process ax(String name, String... args) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> command =
                new ArrayList<>(List.of(java, "-cp", System.getProperty("java.class.path"), Main.class.getName()));
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve(name + ".log").toFile());
        pb.environment().put("AX_ADMIN_TOKEN", TOKEN);
        Process p = pb.start();
        processes.add(p);
        return p;
    }

    @Test
    void a_server_node_drains_on_sigterm_says_so_on_healthz_and_exits_0() throws Exception {
        Path data = dir.resolve("data");
        Process node = ax("server", "server", "--port", "0", "--data-dir", data.toString(), "--drain-timeout", "PT30S");
        String url = await().atMost(Duration.ofSeconds(60))
                .until(() -> EmbeddedServerKillTest.readyUrl(dir.resolve("server.log")), Optional::isPresent)
                .orElseThrow();
        HttpClient http = HttpClient.newHttpClient();
        assertThat(send(http, "POST", url + "/api/tasks", task("slow")).statusCode())
                .isEqualTo(201);
        long id = ((Number) Json.readMap(send(http, "POST", url + "/api/trigger", "{\"taskName\":\"slow\"}")
                                .body())
                        .get("instanceId"))
                .longValue();
        await().atMost(Duration.ofSeconds(30)).until(() -> pid(http, url, id) != null);

        node.destroy(); // SIGTERM

        HttpResponse<String> health = await().atMost(Duration.ofSeconds(10))
                .until(() -> send(http, "GET", url + "/healthz", null), r -> r.statusCode() == 503);
        assertThat(Json.readMap(health.body())).containsEntry("status", "draining");
        assertThat(node.waitFor(30, TimeUnit.SECONDS)).as("exited").isTrue();
        assertThat(node.exitValue()).isZero();
        try (Store store = Store.open(DbConfig.embedded(data))) {
            RunRow run = store.tx(tx -> store.runs().find(tx, id)).orElseThrow();
            assertThat(run.state()).isEqualTo(RunState.SUCCESS);
            assertThat(run.attempt()).isEqualTo(1);
        }
        assertThat(Files.readString(dir.resolve("server.log"))).contains("draining");
    }

    @Test
    void an_executor_drains_on_sigterm_and_exits_0() throws Exception {
        server = AxServer.start(new ServerConfig(
                0,
                dir.resolve("data"),
                TestDatabases.h2(),
                List.of(),
                TOKEN,
                "node-1",
                SchedulerConfig.DEFAULT,
                Duration.ZERO));
        server.node().tasks().create(Json.readMap(task("slow")), "test");
        Process executor = ax(
                "executor",
                "executor",
                "--server",
                server.url().toString(),
                "--token",
                TOKEN,
                "--group",
                "default",
                "--drain-timeout",
                "PT30S");
        long id = server.node().tasks().trigger("slow", Map.of(), Cause.EVENT, "test");
        // Its process started: the executor holds it (a run claimed in the very moment of the signal, its answer still
        // on the way, is left to its lease like any run the executor does not hold).
        await().atMost(Duration.ofSeconds(60)).until(() -> run(id).pid() != null);

        executor.destroy(); // SIGTERM

        assertThat(executor.waitFor(30, TimeUnit.SECONDS)).as("exited").isTrue();
        assertThat(executor.exitValue()).isZero();
        RunRow run = run(id);
        assertThat(run.state()).isEqualTo(RunState.SUCCESS);
        assertThat(run.attempt()).isEqualTo(1);
    }

    RunRow run(long id) {
        return server.store().tx(tx -> server.store().runs().find(tx, id)).orElseThrow();
    }

    static String task(String name) {
        return "{\"taskName\":\"" + name + "\",\"trigger\":{\"type\":\"event\"},"
                + "\"action\":{\"type\":\"shell\",\"command\":\"" + SLOW + "\"}}";
    }

    /** The pid of the run's process, once its executor reported that it started. */
    static Object pid(HttpClient http, String url, long id) throws Exception {
        return Json.readMap(send(http, "GET", url + "/api/runs/" + id, null).body())
                .get("pid");
    }

    static HttpResponse<String> send(HttpClient http, String method, String url, String json) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url))
                .header("Authorization", "Bearer " + TOKEN)
                .timeout(Duration.ofSeconds(10));
        if (json == null) {
            b.method(method, HttpRequest.BodyPublishers.noBody());
        } else {
            b.header("Content-Type", "application/json").method(method, HttpRequest.BodyPublishers.ofString(json));
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }
}
