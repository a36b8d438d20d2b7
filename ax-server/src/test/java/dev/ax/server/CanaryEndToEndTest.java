package dev.ax.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import dev.ax.alerts.AlertsConfig;
import dev.ax.alerts.ChannelConfig;
import dev.ax.domain.run.Cause;
import dev.ax.domain.run.EventType;
import dev.ax.domain.run.RunState;
import dev.ax.scheduler.Canaries;
import dev.ax.scheduler.SchedulerConfig;
import dev.ax.store.EventRow;
import dev.ax.store.RunRow;
import dev.ax.store.TestDatabases;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A canary whose shell command fails ({@code exit 1}) while the stable one succeeds, on a real server with its
 * in-process executor and PostgreSQL: rolled back by itself after the minimum runs, with an event and an alert
 * delivered to a real local webhook.
 */
class CanaryEndToEndTest {
    static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    AxServer server;
    HttpServer http;
    final List<String> bodies = new CopyOnWriteArrayList<>();

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
        if (http != null) {
            http.stop(0);
        }
    }

    static Map<String, Object> task(String command) {
        return Map.of(
                "taskName",
                "nightly_export",
                "trigger",
                Map.of("type", "event"),
                "action",
                Map.of("type", "shell", "command", command),
                "policy",
                Map.of("overflow", "ALLOW", "notifyOnFailure", List.of("ops")));
    }

    @Test
    void a_failing_canary_is_rolled_back_automatically_with_an_event_and_a_webhook_alert() throws Exception {
        http = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        http.createContext("/ops", exchange -> {
            bodies.add(new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
            exchange.sendResponseHeaders(200, -1);
            exchange.close();
        });
        http.start();
        String url = "http://127.0.0.1:" + http.getAddress().getPort() + "/ops";
        server = AxServer.start(new ServerConfig(
                0,
                dir,
                TestDatabases.postgres(),
                List.of("default"),
                "t",
                "node-1",
                SchedulerConfig.DEFAULT,
                Duration.ZERO,
                new AlertsConfig(
                        Map.of("ops", new ChannelConfig.Webhook(url, Map.of())),
                        "http://ax.example:7070",
                        null,
                        AlertsConfig.DEFAULT_STORM_LIMIT,
                        AlertsConfig.Pipeline.DEFAULT.withFirstRetry(Duration.ofMillis(200)),
                        null,
                        null,
                        null)));
        server.node().tasks().create(task("echo exported"), "alice");
        // The next 3 new runs go to the canary; its command fails.
        server.node()
                .canaries()
                .start("nightly_export", task("echo exporting; exit 1"), Canaries.Rollout.of(null, 3, 20, 3), "alice");

        List<Long> ids = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            ids.add(server.node().tasks().trigger("nightly_export", Map.of(), Cause.MANUAL, "alice"));
        }
        await().atMost(Duration.ofSeconds(60))
                .until(() -> ids.stream().allMatch(id -> run(id).state().isTerminal()));
        List<RunRow> runs = ids.stream().map(this::run).toList();
        assertThat(runs.subList(0, 3)).allSatisfy(r -> {
            assertThat(r.taskVersion()).isEqualTo(2);
            assertThat(r.state()).isEqualTo(RunState.FAILED);
            assertThat(r.exitCode()).isEqualTo(1);
        });
        assertThat(runs.subList(3, 6)).allSatisfy(r -> {
            assertThat(r.taskVersion()).isEqualTo(1);
            assertThat(r.state()).isEqualTo(RunState.SUCCESS);
        });

        EventRow rolled = awaitRollback();
        assertThat(rolled.actor()).isEqualTo("scheduler");
        assertThat(rolled.data())
                .containsEntry("automatic", true)
                .containsEntry("canaryFailed", 3)
                .containsEntry("canaryOk", 0);
        assertThat(rolled.message())
                .contains("canary version 2 rolled back; new runs use version 1", "canary 3 of 3 failed (100%)");

        await().atMost(Duration.ofSeconds(30))
                .until(() -> bodies.stream().anyMatch(b -> b.contains("CANARY_ROLLED_BACK")));
        JsonNode alert = JSON.readTree(bodies.stream()
                .filter(b -> b.contains("CANARY_ROLLED_BACK"))
                .findFirst()
                .orElseThrow());
        assertThat(alert.toString())
                .contains(
                        "nightly_export: canary v2 rolled back automatically",
                        "3 of 3 runs failed (100 %)",
                        "http://ax.example:7070/tasks/nightly_export");
        // The 3 failed canary runs themselves were alerted too, as any failure of the task is.
        assertThat(bodies.stream().filter(b -> b.contains("RUN_FAILED"))).hasSize(3);

        // After the rollback every new run is on the stable version and succeeds.
        long after = server.node().tasks().trigger("nightly_export", Map.of(), Cause.MANUAL, "alice");
        await().atMost(Duration.ofSeconds(30)).until(() -> run(after).state().isTerminal());
        assertThat(run(after).taskVersion()).isEqualTo(1);
        assertThat(run(after).state()).isEqualTo(RunState.SUCCESS);
    }

    private EventRow awaitRollback() {
        long taskId = server.store()
                .tx(tx -> server.store().tasks().find(tx, "nightly_export").orElseThrow())
                .id();
        await().atMost(Duration.ofSeconds(10))
                .until(() -> !server.store()
                        .tx(tx -> server.store().events().ofType(tx, taskId, EventType.CANARY_ROLLED_BACK))
                        .isEmpty());
        return server.store()
                .tx(tx -> server.store().events().ofType(tx, taskId, EventType.CANARY_ROLLED_BACK))
                .getFirst();
    }

    private RunRow run(long id) {
        return server.store().tx(tx -> server.store().runs().find(tx, id).orElseThrow());
    }
}
