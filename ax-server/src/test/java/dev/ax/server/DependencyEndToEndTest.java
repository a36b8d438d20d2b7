package dev.ax.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import dev.ax.alerts.AlertsConfig;
import dev.ax.alerts.ChannelConfig;
import dev.ax.domain.run.EventType;
import dev.ax.scheduler.SchedulerConfig;
import dev.ax.store.ClockBoundaries;
import dev.ax.store.EventRow;
import dev.ax.store.TestDatabases;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalTime;
import java.time.ZoneId;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The classic chain through a real server on PostgreSQL, real shell commands and the HTTP API:
 * three sync layers and a report that waits for all three of its date; layer 2 fails on a flag
 * file, the report says so and waits; layer 2 is retried, succeeds, and the report starts at once.
 * Also: the deadline alert reaching a real webhook, and the 400s of bad definitions.
 */
class DependencyEndToEndTest {
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

    @Test
    void the_report_runs_only_after_all_three_layers_of_its_date_and_starts_within_a_second_of_the_recovered_layer()
            throws Exception {
        server = start(AlertsConfig.NONE);
        ServerClient api = new ServerClient(server.url(), server.adminToken());
        Path flag = Files.writeString(dir.resolve("layer2-source-missing"), "x");
        String cron =
                "\"trigger\": {\"type\": \"cron\", \"expression\": \"0 2 * * *\", \"timezone\": \"Asia/Shanghai\"}";
        for (int i = 1; i <= 3; i++) {
            String command = i == 2
                    ? "if [ -f '" + flag
                            + "' ]; then echo 'layer 2: source not ready' >&2; exit 3; fi; echo layer 2 {{date}}"
                    : "echo layer " + i + " {{date}}";
            assertThat(api.post(
                                    "/api/tasks",
                                    "{\"taskName\": \"sync_layer" + i + "\", " + cron
                                            + ", \"action\": {\"type\": \"shell\", \"command\": \""
                                            + command.replace("\"", "\\\"") + "\"}}")
                            .status())
                    .isEqualTo(201);
        }
        ServerClient.Response created = api.post(
                "/api/tasks",
                "{\"taskName\": \"report\", " + cron
                        + ", \"action\": {\"type\": \"shell\", \"command\": \"echo report {{date}}\"},"
                        + " \"dependsOn\": [{\"task\": \"sync_layer1\", \"scope\": \"sameDate\"}, {\"task\": \"sync_layer2\", \"scope\": \"sameDate\"},"
                        + " {\"task\": \"sync_layer3\", \"scope\": \"sameDate\"}]}");
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        assertThat(created.json().at("/definition/dependsOn/1/task").asText()).isEqualTo("sync_layer2");
        assertThat(created.json()
                        .at("/definition/dependencyPolicy/onUpstreamFailure")
                        .asText())
                .isEqualTo("WAIT");

        // A run triggered by hand takes the date it is created on in Shanghai: the report and its layers must all get
        // the same one.
        ClockBoundaries.awaitClearOfTimeOfDay(
                server.store(), ZoneId.of("Asia/Shanghai"), LocalTime.MIDNIGHT, Duration.ofSeconds(60));
        long report = trigger(api, "report");
        JsonNode waiting = api.instance(report);
        assertThat(waiting.get("state").asText()).isEqualTo("WAITING_DEPENDENCY");
        assertThat(waiting.get("waitingFor")).hasSize(3);
        assertThat(waiting.get("waitingReason").asText()).contains("waiting for sync_layer1 (sameDate");

        long l1 = trigger(api, "sync_layer1");
        long l2 = trigger(api, "sync_layer2");
        long l3 = trigger(api, "sync_layer3");
        await().atMost(Duration.ofSeconds(30))
                .until(() -> state(api, l1).equals("SUCCESS")
                        && state(api, l2).equals("FAILED")
                        && state(api, l3).equals("SUCCESS"));
        JsonNode stillWaiting = api.instance(report);
        assertThat(stillWaiting.get("state").asText()).isEqualTo("WAITING_DEPENDENCY");
        JsonNode layer2 = stillWaiting.get("waitingFor").get(1);
        assertThat(layer2.get("task").asText()).isEqualTo("sync_layer2");
        assertThat(layer2.get("met").asBoolean()).isFalse();
        assertThat(layer2.get("state").asText()).isEqualTo("FAILED");
        assertThat(layer2.get("instanceId").asLong()).isEqualTo(l2);
        assertThat(layer2.get("text").asText()).contains("ended FAILED, run " + l2);
        assertThat(stillWaiting.get("waitingFor").get(0).get("met").asBoolean()).isTrue();
        assertThat(stillWaiting.get("waitingReason").asText())
                .contains("sync_layer2")
                .contains("FAILED");

        Files.delete(flag);
        ServerClient.Response retried = api.post("/api/instances/" + l2 + "/retry", "{}");
        assertThat(retried.status()).as(retried.body()).isIn(200, 201, 202);
        long retry = retried.json().get("instanceId").asLong();
        await().atMost(Duration.ofSeconds(30)).until(() -> state(api, report).equals("SUCCESS"));

        EventRow layerDone = event(retry, EventType.SUCCEEDED);
        EventRow released = event(report, EventType.DEPENDENCY_MET);
        EventRow claimed = event(report, EventType.CLAIMED);
        // Released in the transaction that recorded the layer's success (one timestamp on PostgreSQL), claimed right
        // after.
        assertThat(released.at()).isEqualTo(layerDone.at());
        assertThat(claimed.at()).isAfterOrEqualTo(released.at());
        assertThat(Duration.between(layerDone.at(), claimed.at())).isLessThan(Duration.ofSeconds(1));
        assertThat(api.get("/api/instances/" + report + "/log?format=text").body())
                .contains("report ");
        assertThat(server.node().loopErrors()).isZero();
    }

    @Test
    void a_wait_past_its_deadline_is_alerted_to_the_webhook() throws Exception {
        http = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        http.createContext("/ops", exchange -> {
            bodies.add(new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
            exchange.sendResponseHeaders(200, -1);
            exchange.close();
        });
        http.start();
        String url = "http://127.0.0.1:" + http.getAddress().getPort() + "/ops";
        server = start(new AlertsConfig(
                Map.of("ops", new ChannelConfig.Webhook(url, Map.of())),
                "http://ax.example:7070",
                null,
                AlertsConfig.DEFAULT_STORM_LIMIT,
                AlertsConfig.Pipeline.DEFAULT.withFirstRetry(Duration.ofMillis(200)),
                null,
                null,
                null));
        ServerClient api = new ServerClient(server.url(), server.adminToken());
        assertThat(api.post(
                                "/api/tasks",
                                "{\"taskName\": \"sync\", \"trigger\": {\"type\": \"event\"},"
                                        + " \"action\": {\"type\": \"shell\", \"command\": \"true\"}}")
                        .status())
                .isEqualTo(201);
        assertThat(api.post(
                                "/api/tasks",
                                "{\"taskName\": \"report\", \"trigger\": {\"type\": \"event\"},"
                                        + " \"action\": {\"type\": \"shell\", \"command\": \"true\"}, \"policy\": {\"notifyOnFailure\": [\"ops\"]},"
                                        + " \"dependsOn\": [{\"task\": \"sync\"}], \"dependencyPolicy\": {\"waitDeadline\": \"PT1S\"}}")
                        .status())
                .isEqualTo(201);
        long report = trigger(api, "report");

        await().atMost(Duration.ofSeconds(30)).until(() -> !bodies.isEmpty());
        JsonNode alert = new ObjectMapper().readTree(bodies.getFirst());
        assertThat(alert.toString())
                .contains("DEPENDENCY_DEADLINE")
                .contains("report #" + report)
                .contains("dependencies were not met in time")
                .contains("sync (sameDate");
        assertThat(state(api, report)).isEqualTo("FAILED");
        assertThat(api.eventTypes(report)).contains("DEPENDENCY_DEADLINE");
    }

    @Test
    void bad_dependencies_get_a_400_naming_the_field_and_nothing_is_saved() {
        server = start(AlertsConfig.NONE);
        ServerClient api = new ServerClient(server.url(), server.adminToken());
        String action = "\"trigger\": {\"type\": \"event\"}, \"action\": {\"type\": \"shell\", \"command\": \"true\"}";
        assertThat(api.post("/api/tasks", "{\"taskName\": \"a\", " + action + "}")
                        .status())
                .isEqualTo(201);
        assertThat(api.post("/api/tasks", "{\"taskName\": \"b\", " + action + ", \"dependsOn\": [{\"task\": \"a\"}]}")
                        .status())
                .isEqualTo(201);

        assertError(
                api.post("/api/tasks", "{\"taskName\": \"c\", " + action + ", \"dependsOn\": [{\"task\": \"ghost\"}]}"),
                "dependsOn[0].task",
                "no task named ghost");
        assertError(
                api.post(
                        "/api/tasks",
                        "{\"taskName\": \"c\", " + action
                                + ", \"dependsOn\": [{\"task\": \"a\", \"scope\": \"yesterday\"}]}"),
                "dependsOn[0].scope",
                "unknown scope 'yesterday'");
        assertError(
                api.post("/api/tasks", "{\"taskName\": \"c\", " + action + ", \"dependsOn\": [{\"task\": \"c\"}]}"),
                "dependsOn[0].task",
                "only with scope previousSlot");
        assertThat(api.get("/api/tasks/c").status()).isEqualTo(404);

        ServerClient.Response cycle =
                api.put("/api/tasks/a", "{\"taskName\": \"a\", " + action + ", \"dependsOn\": [{\"task\": \"b\"}]}");
        assertError(cycle, "dependsOn", "dependency cycle: a → b → a");
        assertThat(api.get("/api/tasks/a").json().get("version").asInt()).isEqualTo(1);

        assertError(
                api.post(
                        "/api/tasks/a/backfill",
                        "{\"from\": \"2026-10-01\", \"to\": \"2026-10-02\", \"cascade\": \"yes\"}"),
                "cascade",
                "must be true or false");
    }

    private static void assertError(ServerClient.Response r, String field, String reason) {
        assertThat(r.status()).as(r.body()).isEqualTo(400);
        JsonNode fields = r.json().at("/error/fields");
        assertThat(fields).as(r.body()).hasSize(1);
        assertThat(fields.get(0).get("field").asText()).isEqualTo(field);
        assertThat(fields.get(0).get("reason").asText()).contains(reason);
    }

    private long trigger(ServerClient api, String task) {
        ServerClient.Response r = api.post("/api/tasks/" + task + "/trigger", "{}");
        assertThat(r.status()).as(r.body()).isEqualTo(202);
        return r.json().get("instanceId").asLong();
    }

    private static String state(ServerClient api, long id) {
        return api.instance(id).get("state").asText();
    }

    private EventRow event(long id, EventType type) {
        return server.store().tx(tx -> server.store().events().forRun(tx, id, 0, 1000)).stream()
                .filter(e -> e.type() == type)
                .findFirst()
                .orElseThrow(() -> new AssertionError("no " + type + " on " + id));
    }

    private AxServer start(AlertsConfig alerts) {
        return AxServer.start(new ServerConfig(
                0,
                dir,
                TestDatabases.postgres(),
                List.of("default"),
                "t",
                "node-1",
                SchedulerConfig.DEFAULT,
                Duration.ZERO,
                alerts));
    }
}
