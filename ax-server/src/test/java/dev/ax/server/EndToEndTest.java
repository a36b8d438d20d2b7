package dev.ax.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ax.store.TestDatabases;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A whole node with its in-process executor, driven over HTTP like a user would. */
class EndToEndTest {
    @TempDir
    Path dir;

    AxServer server;
    ServerClient client;

    @BeforeEach
    void start() {
        server = AxServer.start(AxServerTest.config(dir, TestDatabases.h2(), List.of("default"), null));
        client = new ServerClient(server.url(), server.adminToken());
    }

    @AfterEach
    void stop() {
        server.close();
    }

    static String eventTask(String name, String command, String policy) {
        return """
                {"taskName":"%s","trigger":{"type":"event"},"action":{"type":"shell","command":"%s"},"policy":%s}""".formatted(name, command, policy);
    }

    long trigger(String task) {
        ServerClient.Response r = client.post("/api/trigger", "{\"taskName\":\"" + task + "\",\"params\":{}}");
        assertThat(r.status()).as(r.body()).isEqualTo(202);
        return r.json().get("instanceId").asLong();
    }

    @Test
    void runs_an_event_task_on_the_in_process_executor_and_shows_pid_events_and_log() {
        assertThat(client.post("/api/tasks", eventTask("hello", "echo hello-$AX_INSTANCE_ID; exit 0", "{}"))
                        .status())
                .isEqualTo(201);

        long id = trigger("hello");

        await().atMost(Duration.ofSeconds(15))
                .until(() -> client.instance(id).get("state").asText().equals("SUCCESS"));
        JsonNode run = client.instance(id);
        assertThat(run.get("exitCode").asInt()).isZero();
        assertThat(run.get("pid").asLong()).isPositive();
        assertThat(run.get("executorId").asText()).isEqualTo("node-1-local");
        assertThat(run.get("cause").asText()).isEqualTo("event");
        assertThat(run.get("actor").asText()).isEqualTo("admin");
        assertThat(client.eventTypes(id)).containsExactly("CREATED", "CLAIMED", "STARTED", "SUCCEEDED");
        JsonNode started = client.get("/api/instances/" + id + "/events")
                .json()
                .get("items")
                .get(2);
        assertThat(started.get("data").get("pid").asLong())
                .isEqualTo(run.get("pid").asLong());
        await().atMost(Duration.ofSeconds(5))
                .untilAsserted(() -> assertThat(client.get("/api/instances/" + id + "/log?format=text")
                                .body())
                        .contains("hello-" + id));
        assertThat(server.node().loopErrors()).isZero();
    }

    @Test
    void retries_a_failing_command_then_fails_it() {
        client.post("/api/tasks", eventTask("broken", "exit 3", "{\"maxRetries\":1,\"retryIntervalSeconds\":0}"));

        long id = trigger("broken");

        await().atMost(Duration.ofSeconds(15))
                .until(() -> client.instance(id).get("state").asText().equals("FAILED"));
        JsonNode run = client.instance(id);
        assertThat(run.get("attempt").asInt()).isEqualTo(2);
        assertThat(run.get("exitCode").asInt()).isEqualTo(3);
        assertThat(run.get("failureKind").asText()).isEqualTo("EXIT_CODE");
        List<String> types = client.eventTypes(id);
        assertThat(types)
                .containsSubsequence(
                        "CREATED", "CLAIMED", "STARTED", "RETRY_SCHEDULED", "CLAIMED", "STARTED", "FAILED");
        assertThat(types.indexOf("RETRY_SCHEDULED")).isLessThan(types.lastIndexOf("FAILED"));
        assertThat(server.node().loopErrors()).isZero();
    }

    @Test
    void fires_an_every_second_cron_task_once_per_second_without_gaps() {
        String task = """
                {"taskName":"tick","trigger":{"type":"cron","expression":"* * * * * *"},"action":{"type":"shell","command":"true"}}""";
        assertThat(client.post("/api/tasks", task).status()).isEqualTo(201);

        await().atMost(Duration.ofSeconds(15)).until(() -> instances("tick").size() >= 4);
        client.post("/api/tasks/tick/pause", "");

        List<JsonNode> runs = instances("tick");
        List<Instant> slots = new ArrayList<>();
        for (JsonNode r : runs.reversed()) {
            assertThat(r.get("cause").asText()).isEqualTo("cron");
            assertThat(r.get("fireKey").asText()).isEqualTo(r.get("scheduledAt").asText());
            slots.add(Instant.parse(r.get("scheduledAt").asText()));
        }
        assertThat(slots).doesNotHaveDuplicates().isSorted();
        for (int i = 1; i < slots.size(); i++) {
            assertThat(Duration.between(slots.get(i - 1), slots.get(i)))
                    .as("gap before " + slots.get(i))
                    .isEqualTo(Duration.ofSeconds(1));
        }
        await().atMost(Duration.ofSeconds(10))
                .until(() -> instances("tick").stream()
                        .allMatch(r -> r.get("state").asText().equals("SUCCESS")));
        assertThat(server.node().loopErrors()).isZero();
    }

    private List<JsonNode> instances(String task) {
        List<JsonNode> out = new ArrayList<>();
        client.get("/api/instances?limit=500&task=" + task).json().get("items").forEach(out::add);
        return out;
    }
}
