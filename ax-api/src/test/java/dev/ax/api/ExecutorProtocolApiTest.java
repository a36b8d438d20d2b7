package dev.ax.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ax.api.ApiClient.Response;
import dev.ax.store.TestDatabases;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The executor protocol spoken by hand over HTTP, as a remote executor would. */
class ExecutorProtocolApiTest {
    TestNode node;
    ApiClient admin;
    ApiClient exec;

    @BeforeEach
    void start() {
        node = new TestNode(TestDatabases.h2());
        admin = node.client(TestNode.ADMIN);
        exec = node.client(TestNode.EXECUTOR);
    }

    @AfterEach
    void stop() {
        node.close();
    }

    private Response register() {
        return exec.post(
                "/api/executor/register",
                Map.of(
                        "executorId",
                        "exec-1",
                        "session",
                        "s1",
                        "groups",
                        List.of("default"),
                        "host",
                        "box",
                        "pid",
                        42,
                        "version",
                        "test",
                        "held",
                        List.of()));
    }

    @Test
    void runs_an_instance_through_register_poll_started_log_complete() {
        admin.post("/api/tasks", ApiContractTest.eventTask("hello", "echo hi"));
        long id = admin.post("/api/trigger", "{\"taskName\":\"hello\"}")
                .json()
                .get("instanceId")
                .asLong();

        Response reg = register();
        assertThat(reg.status()).as(reg.toString()).isEqualTo(200);
        assertThat(reg.json().get("leaseMillis").asLong()).isPositive();
        assertThat(admin.get("/api/instances/" + id).json().get("waitingReason").isNull())
                .isTrue();

        Response poll = exec.post(
                "/api/executor/poll",
                Map.of("executorId", "exec-1", "groups", List.of("default"), "max", 5, "waitMillis", 2000));
        assertThat(poll.status()).as(poll.toString()).isEqualTo(200);
        JsonNode item = poll.json().get("items").get(0);
        assertThat(item.get("instanceId").asLong()).isEqualTo(id);
        assertThat(item.get("command").asText()).isEqualTo("echo hi");
        int attempt = item.get("attempt").asInt();
        Map<String, Object> run = Map.of("instanceId", id, "attempt", attempt);

        assertThat(exec.post("/api/executor/started", Map.of("executorId", "exec-1", "run", run, "pid", 4242))
                        .status())
                .isEqualTo(200);
        assertThat(exec.post(
                                "/api/executor/heartbeat",
                                Map.of("executorId", "exec-1", "session", "s1", "held", List.of(run)))
                        .json()
                        .get("renewed"))
                .hasSize(1);
        assertThat(exec.post(
                                "/api/executor/log",
                                Map.of(
                                        "executorId",
                                        "exec-1",
                                        "run",
                                        run,
                                        "stream",
                                        "stdout",
                                        "lines",
                                        List.of("hi", "there")))
                        .status())
                .isEqualTo(200);
        Response done = exec.post(
                "/api/executor/complete", Map.of("executorId", "exec-1", "run", run, "success", true, "exitCode", 0));
        assertThat(done.status()).as(done.toString()).isEqualTo(200);
        assertThat(done.json().get("accepted").asBoolean()).isTrue();

        JsonNode view = admin.get("/api/runs/" + id).json();
        assertThat(view.get("state").asText()).isEqualTo("SUCCESS");
        // The path before runs were called runs answers the same.
        assertThat(admin.get("/api/instances/" + id).json()).isEqualTo(view);
        assertThat(view.get("pid").asLong()).isEqualTo(4242);
        assertThat(view.get("executorId").asText()).isEqualTo("exec-1");
        JsonNode events = admin.get("/api/instances/" + id + "/events").json();
        assertThat(StreamSupport.stream(events.get("items").spliterator(), false)
                        .map(e -> e.get("type").asText()))
                .containsExactly("CREATED", "CLAIMED", "STARTED", "SUCCEEDED");
        JsonNode log = admin.get("/api/instances/" + id + "/log").json();
        assertThat(log.get("items").get(0).get("text").asText()).isEqualTo("hi\nthere");
        assertThat(admin.get("/api/instances/" + id + "/log?after="
                                + log.get("next").asLong())
                        .json()
                        .get("items"))
                .isEmpty();
        Response text = admin.getText("/api/instances/" + id + "/log");
        assertThat(text.contentType()).startsWith("text/plain");
        assertThat(text.body()).isEqualTo("hi\nthere\n");
        assertThat(admin.get("/api/instances/" + id + "/log?format=text").body())
                .isEqualTo("hi\nthere\n");

        JsonNode executors = admin.get("/api/executors").json().get("items");
        assertThat(executors.get(0).get("id").asText()).isEqualTo("exec-1");
        assertThat(executors.get(0).get("online").asBoolean()).isTrue();
        assertThat(executors.get(0).get("groups").get(0).asText()).isEqualTo("default");
    }

    @Test
    void refuses_a_report_for_an_attempt_the_executor_does_not_hold_with_409() {
        admin.post("/api/tasks", ApiContractTest.eventTask("hello", "echo hi"));
        long id = admin.post("/api/trigger", "{\"taskName\":\"hello\"}")
                .json()
                .get("instanceId")
                .asLong();
        register();

        Response r = exec.post(
                "/api/executor/complete",
                Map.of("executorId", "exec-1", "run", Map.of("instanceId", id, "attempt", 7), "success", true));

        assertThat(r.status()).isEqualTo(409);
        assertThat(r.json().get("accepted").asBoolean()).isFalse();
        assertThat(r.json().get("reason").asText()).contains("refused");
    }

    @Test
    void refuses_malformed_protocol_bodies_with_400() {
        assertThat(exec.post("/api/executor/poll", "{\"executorId\":").status()).isEqualTo(400);
        Response missing = exec.post("/api/executor/poll", "{\"executorId\":\"x\"}");
        assertThat(missing.status()).as(missing.toString()).isEqualTo(400);
        Response wrongType = exec.post("/api/executor/poll", "{\"executorId\":\"x\",\"groups\":[],\"max\":\"many\"}");
        assertThat(wrongType.status()).isEqualTo(400);
        assertThat(wrongType
                        .json()
                        .get("error")
                        .get("fields")
                        .get(0)
                        .get("field")
                        .asText())
                .isEqualTo("max");
        for (String route : List.of("/api/executor/poll", "/api/executor/register")) {
            Response noGroups = exec.post(route, "{\"executorId\":\"x\",\"session\":\"s\",\"groups\":[],\"max\":1}");
            assertThat(noGroups.status()).as(route + " " + noGroups).isEqualTo(400);
            assertThat(noGroups.json()
                            .get("error")
                            .get("fields")
                            .get(0)
                            .get("field")
                            .asText())
                    .isEqualTo("groups");
        }
    }

    @Test
    void fifty_waiting_long_polls_do_not_starve_the_api() {
        register();
        List<CompletableFuture<Response>> polls = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            polls.add(exec.postAsync(
                    "/api/executor/poll",
                    Map.of("executorId", "exec-1", "groups", List.of("nothing-here"), "max", 1, "waitMillis", 3000)));
        }

        long start = System.nanoTime();
        Response health = admin.get("/api/tasks");
        Duration took = Duration.ofNanos(System.nanoTime() - start);

        assertThat(health.status()).isEqualTo(200);
        assertThat(took).isLessThan(Duration.ofSeconds(2));
        polls.forEach(p -> assertThat(p.join().json().get("items")).isEmpty());
    }
}
