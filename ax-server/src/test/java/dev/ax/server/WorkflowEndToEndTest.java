package dev.ax.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ax.store.TestDatabases;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Workflows end to end, on PostgreSQL with real shell commands and the in-process
 * executor, driven over HTTP: a → {b, c} → d plus the cleanup node e (oneFailed). c fails
 * ({@code exit 3}, no retries), so d is skipped and e runs; after c's condition is fixed, a rerun
 * from c runs only c and d again (e is skipped by its rule) and the run ends SUCCESS.
 */
class WorkflowEndToEndTest {
    static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    AxServer server;
    ServerClient client;

    @BeforeEach
    void start() {
        server = AxServer.start(AxServerTest.config(dir, TestDatabases.postgres(), List.of("default"), null));
        client = new ServerClient(server.url(), server.adminToken());
    }

    @AfterEach
    void stop() {
        server.close();
    }

    static String json(Object value) {
        try {
            return JSON.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    void task(String name, String command) {
        var r = client.post(
                "/api/tasks",
                json(Map.of(
                        "taskName",
                        name,
                        "trigger",
                        Map.of("type", "event"),
                        "action",
                        Map.of("type", "shell", "command", command))));
        assertThat(r.status()).as(r.body()).isEqualTo(201);
    }

    static Map<String, Object> node(String name, String task, String rule) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("name", name);
        m.put("task", task);
        m.put("triggerRule", rule);
        return m;
    }

    static Map<String, Object> edge(String from, String to) {
        return Map.of("from", from, "to", to);
    }

    Map<String, String> nodeStates(JsonNode run) {
        Map<String, String> states = new LinkedHashMap<>();
        run.get("nodes")
                .forEach(n -> states.put(n.get("name").asText(), n.get("state").asText()));
        return states;
    }

    JsonNode run(long id) {
        return client.get("/api/workflow-runs/" + id).json();
    }

    /** Straight from the database: how many runs each task had in the run. */
    Map<String, Integer> instancesPerTask(long runId) {
        Map<String, Integer> counts = new TreeMap<>();
        server.store()
                .tx(tx -> tx.query(
                        "SELECT task_name, COUNT(*) AS n FROM ax_instance WHERE workflow_run_id = ? GROUP BY task_name",
                        r -> counts.put(r.str("task_name"), r.integer("n")),
                        runId));
        return counts;
    }

    @Test
    void a_rerun_from_the_failed_node_runs_only_it_and_its_descendants_and_the_run_ends_success() throws Exception {
        Path trace = dir.resolve("trace.txt");
        Path flag = dir.resolve("c.ok");
        task("wf_a", "echo a {{date}} >> " + trace);
        task("wf_b", "echo b >> " + trace);
        task("wf_c", "echo c >> " + trace + "; test -f " + flag + " || exit 3");
        task("wf_d", "echo d >> " + trace);
        task("wf_cleanup", "echo cleanup >> " + trace);
        var created = client.post(
                "/api/workflows",
                json(Map.of(
                        "name",
                        "nightly",
                        "nodes",
                        List.of(
                                node("a", "wf_a", "allSuccess"),
                                node("b", "wf_b", "allSuccess"),
                                node("c", "wf_c", "allSuccess"),
                                node("d", "wf_d", "allSuccess"),
                                node("e", "wf_cleanup", "oneFailed")),
                        "edges",
                        List.of(
                                edge("a", "b"),
                                edge("a", "c"),
                                edge("b", "d"),
                                edge("c", "d"),
                                edge("b", "e"),
                                edge("c", "e")))));
        assertThat(created.status()).as(created.body()).isEqualTo(201);

        var triggered = client.post("/api/workflows/nightly/trigger", "{}");
        assertThat(triggered.status()).as(triggered.body()).isEqualTo(202);
        long id = triggered.json().get("id").asLong();
        await().atMost(Duration.ofSeconds(60))
                .until(() -> !run(id).get("state").asText().equals("RUNNING"));

        JsonNode failed = run(id);
        assertThat(failed.get("state").asText()).isEqualTo("FAILED");
        assertThat(nodeStates(failed))
                .containsExactly(
                        Map.entry("a", "SUCCESS"),
                        Map.entry("b", "SUCCESS"),
                        Map.entry("c", "FAILED"),
                        Map.entry("d", "SKIPPED"),
                        Map.entry("e", "SUCCESS"));
        JsonNode d = failed.get("nodes").get(3);
        assertThat(d.get("name").asText()).isEqualTo("d");
        assertThat(d.get("reason").asText()).isEqualTo("upstream c failed");
        assertThat(d.get("upstream").toString()).isEqualTo("[\"b\",\"c\"]");
        long firstC = failed.get("nodes").get(2).get("instanceId").asLong();
        assertThat(client.instance(firstC).get("exitCode").asInt()).isEqualTo(3);
        assertThat(instancesPerTask(id)).isEqualTo(Map.of("wf_a", 1, "wf_b", 1, "wf_c", 1, "wf_cleanup", 1));

        Files.writeString(flag, "fixed");
        var rerun = client.post("/api/workflow-runs/" + id + "/rerun", "{\"from\":\"c\"}");
        assertThat(rerun.status()).as(rerun.body()).isEqualTo(200);
        assertThat(rerun.json().get("state").asText()).isEqualTo("RUNNING");
        await().atMost(Duration.ofSeconds(60))
                .until(() -> !run(id).get("state").asText().equals("RUNNING"));

        JsonNode done = run(id);
        assertThat(done.get("state").asText()).isEqualTo("SUCCESS");
        assertThat(nodeStates(done))
                .containsExactly(
                        Map.entry("a", "SUCCESS"),
                        Map.entry("b", "SUCCESS"),
                        Map.entry("c", "SUCCESS"),
                        Map.entry("d", "SUCCESS"),
                        Map.entry("e", "SKIPPED"));
        assertThat(done.get("nodes").get(4).get("reason").asText()).isEqualTo("no upstream node failed");
        // a and b kept their single run; c ran twice; d ran once (now); the cleanup ran once (the first time)
        assertThat(instancesPerTask(id)).isEqualTo(Map.of("wf_a", 1, "wf_b", 1, "wf_c", 2, "wf_d", 1, "wf_cleanup", 1));
        assertThat(done.get("nodes").get(0).get("attempts").asInt()).isEqualTo(1);
        assertThat(done.get("nodes").get(2).get("attempts").asInt()).isEqualTo(2);
        assertThat(Files.readAllLines(trace).stream()
                        .filter(l -> l.startsWith("a "))
                        .count())
                .isEqualTo(1);
        assertThat(Files.readAllLines(trace)).filteredOn("c"::equals).hasSize(2);
        assertThat(done.get("events").toString()).contains("WORKFLOW_RERUN").contains("rerun from c by admin");
        assertThat(server.node().loopErrors()).isZero();
    }

    @Test
    void a_cycle_is_a_400_naming_it_and_an_unknown_task_a_400_with_its_field() {
        task("wf_x", "true");
        var cycle = client.post(
                "/api/workflows",
                json(Map.of(
                        "name",
                        "loop",
                        "nodes",
                        List.of(
                                node("a", "wf_x", "allSuccess"),
                                node("b", "wf_x", "allSuccess"),
                                node("c", "wf_x", "allSuccess")),
                        "edges",
                        List.of(edge("a", "b"), edge("b", "c"), edge("c", "a")))));
        assertThat(cycle.status()).isEqualTo(400);
        assertThat(cycle.json().get("error").get("fields").toString())
                .contains("\"field\":\"edges\"")
                .contains("cycle: a → b → c → a");

        var unknown = client.post(
                "/api/workflows", json(Map.of("name", "u", "nodes", List.of(node("a", "no_such_task", "allSuccess")))));
        assertThat(unknown.status()).isEqualTo(400);
        assertThat(unknown.json().get("error").get("fields").toString())
                .contains("\"field\":\"nodes[0].task\"")
                .contains("no task named 'no_such_task'");
        assertThat(client.get("/api/workflows").json().get("items")).isEmpty();
    }
}
