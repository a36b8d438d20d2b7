package dev.ax.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ax.api.ApiClient.Response;
import dev.ax.store.DbConfig;
import java.util.List;
import java.util.Map;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What an operator does to a run: terminate, cancel, retry, re-run; and the task counters. Runs
 * are driven through the executor protocol by hand, so every state is reached without a process.
 * Run on H2 and on PostgreSQL by the subclasses.
 */
abstract class RunControlApiTest {
    TestNode node;
    ApiClient admin;
    ApiClient operator;
    ApiClient exec;

    abstract DbConfig db();

    @BeforeEach
    void start() {
        node = new TestNode(db());
        admin = node.client(TestNode.ADMIN);
        operator = node.client(TestNode.OPERATOR);
        exec = node.client(TestNode.EXECUTOR);
    }

    @AfterEach
    void stop() {
        node.close();
    }

    // --- helpers: a hand-driven executor

    private long trigger(String task) {
        Response r = operator.post("/api/trigger", Map.of("taskName", task));
        assertThat(r.status()).as(r.toString()).isEqualTo(202);
        return r.json().get("instanceId").asLong();
    }

    private void register() {
        Response r = exec.post(
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
        assertThat(r.status()).as(r.toString()).isEqualTo(200);
    }

    /** Claims the one READY run and reports it started; returns its run reference (id and attempt). */
    private Map<String, Object> startRun(long id) {
        Response poll = exec.post(
                "/api/executor/poll",
                Map.of("executorId", "exec-1", "groups", List.of("default"), "max", 1, "waitMillis", 2000));
        JsonNode item = poll.json().get("items").get(0);
        assertThat(item.get("instanceId").asLong()).as(poll.toString()).isEqualTo(id);
        Map<String, Object> run =
                Map.of("instanceId", id, "attempt", item.get("attempt").asInt());
        assertThat(exec.post("/api/executor/started", Map.of("executorId", "exec-1", "run", run, "pid", 4242))
                        .status())
                .isEqualTo(200);
        assertThat(state(id)).isEqualTo("RUNNING");
        return run;
    }

    private void finish(Map<String, Object> run, boolean success, int exitCode) {
        Response done = exec.post(
                "/api/executor/complete",
                Map.of("executorId", "exec-1", "run", run, "success", success, "exitCode", exitCode));
        assertThat(done.status()).as(done.toString()).isEqualTo(200);
    }

    private String state(long id) {
        return admin.get("/api/instances/" + id).json().get("state").asText();
    }

    private static String message(Response r) {
        return r.json().get("error").get("message").asText();
    }

    private List<String> eventTypes(long id) {
        JsonNode items = admin.get("/api/instances/" + id + "/events").json().get("items");
        return StreamSupport.stream(items.spliterator(), false)
                .map(e -> e.get("type").asText())
                .toList();
    }

    // --- terminate

    @Test
    void terminate_stops_a_running_run_and_its_executor_is_told_to_abandon_it() {
        admin.post("/api/tasks", ApiContractTest.eventTask("slow", "sleep 600"));
        long id = trigger("slow");
        register();
        Map<String, Object> run = startRun(id);

        Response r = operator.post("/api/instances/" + id + "/terminate", "{\"reason\":\"stuck on a lock\"}");

        assertThat(r.status()).as(r.toString()).isEqualTo(200);
        assertThat(r.json().get("id").asLong()).isEqualTo(id);
        assertThat(r.json().get("state").asText()).isEqualTo("TERMINATED");
        assertThat(r.json().get("finishedAt").isNull()).isFalse();
        JsonNode beat = exec.post(
                        "/api/executor/heartbeat",
                        Map.of("executorId", "exec-1", "session", "s1", "held", List.of(run)))
                .json();
        assertThat(beat.get("abandon")).hasSize(1);
        assertThat(beat.get("abandon").get(0).get("instanceId").asLong()).isEqualTo(id);
        assertThat(beat.get("renewed")).isEmpty();
        // The killed process's exit is reported too late: the run stays TERMINATED.
        Response late = exec.post(
                "/api/executor/complete",
                Map.of("executorId", "exec-1", "run", run, "success", false, "exitCode", 143));
        assertThat(late.status()).isEqualTo(409);
        assertThat(state(id)).isEqualTo("TERMINATED");
        JsonNode last = admin.get("/api/instances/" + id + "/events").json().get("items");
        JsonNode terminated = StreamSupport.stream(last.spliterator(), false)
                .filter(e -> e.get("type").asText().equals("TERMINATED"))
                .findFirst()
                .orElseThrow();
        assertThat(terminated.get("actor").asText()).isEqualTo("olga");
        assertThat(terminated.get("message").asText()).contains("stuck on a lock");
    }

    @Test
    void terminate_of_a_waiting_run_is_409_and_says_cancel_it_instead() {
        admin.post("/api/tasks", ApiContractTest.eventTask("waits", "true"));
        long id = trigger("waits");

        Response r = operator.post("/api/instances/" + id + "/terminate", "");

        assertThat(r.status()).as(r.toString()).isEqualTo(409);
        assertThat(message(r)).contains("READY").contains("cancel it instead");
        assertThat(state(id)).isEqualTo("READY");
    }

    @Test
    void terminate_and_cancel_of_an_unknown_run_are_404_and_a_bad_reason_is_400() {
        assertThat(operator.post("/api/instances/999999/terminate", "").status())
                .isEqualTo(404);
        assertThat(operator.post("/api/instances/999999/cancel", "").status()).isEqualTo(404);
        assertThat(operator.post("/api/instances/999999/retry", "").status()).isEqualTo(404);
        assertThat(operator.post("/api/instances/999999/rerun", "").status()).isEqualTo(404);
        ApiContractTest.assertField(operator.post("/api/instances/abc/terminate", ""), "id");

        admin.post("/api/tasks", ApiContractTest.eventTask("waits", "true"));
        long id = trigger("waits");
        ApiContractTest.assertField(operator.post("/api/instances/" + id + "/cancel", "{\"reason\":42}"), "reason");
        ApiContractTest.assertField(operator.post("/api/instances/" + id + "/cancel", "[]"), "");
        assertThat(state(id)).isEqualTo("READY");
    }

    // --- cancel

    @Test
    void cancel_withdraws_a_run_blocked_by_the_concurrency_limit_and_explains_the_wait_before() {
        admin.post("/api/tasks", ApiContractTest.eventTask("one_at_a_time", "true"));
        long first = trigger("one_at_a_time");
        long second = trigger("one_at_a_time");
        JsonNode blocked = admin.get("/api/instances/" + second).json();
        assertThat(blocked.get("state").asText()).isEqualTo("BLOCKED");
        assertThat(blocked.get("waitingReason").asText())
                .isEqualTo("waiting for a concurrency slot (maxConcurrency 1)");

        Response r = operator.post("/api/instances/" + second + "/cancel", "{\"reason\":\"not needed\"}");

        assertThat(r.status()).as(r.toString()).isEqualTo(200);
        assertThat(r.json().get("state").asText()).isEqualTo("CANCELED");
        assertThat(r.json().get("waitingReason").isNull()).isTrue();
        assertThat(eventTypes(second)).endsWith("CANCELED");
        assertThat(state(first)).isEqualTo("READY");
        Response again = operator.post("/api/instances/" + second + "/cancel", "");
        assertThat(again.status()).isEqualTo(409);
        assertThat(message(again)).contains("CANCELED");
    }

    @Test
    void canceling_the_active_run_lets_the_blocked_one_start() {
        admin.post("/api/tasks", ApiContractTest.eventTask("one_at_a_time", "true"));
        long first = trigger("one_at_a_time");
        long second = trigger("one_at_a_time");

        assertThat(operator.post("/api/instances/" + first + "/cancel", "").status())
                .isEqualTo(200);

        assertThat(state(second)).isEqualTo("READY");
        assertThat(eventTypes(second)).contains("UNBLOCKED");
    }

    @Test
    void cancel_of_a_running_run_is_409_and_says_terminate_it_instead() {
        admin.post("/api/tasks", ApiContractTest.eventTask("slow", "sleep 600"));
        long id = trigger("slow");
        register();
        startRun(id);

        Response r = operator.post("/api/instances/" + id + "/cancel", "");

        assertThat(r.status()).as(r.toString()).isEqualTo(409);
        assertThat(message(r)).contains("terminate it instead");
    }

    // --- retry and re-run

    @Test
    void retry_of_a_failed_run_creates_a_chained_run_with_cause_retry() {
        admin.post("/api/tasks", ApiContractTest.eventTask("flaky", "exit 3"));
        long failed = trigger("flaky");
        register();
        finish(startRun(failed), false, 3);
        assertThat(state(failed)).isEqualTo("FAILED");

        Response r = operator.post("/api/instances/" + failed + "/retry", "");

        assertThat(r.status()).as(r.toString()).isEqualTo(201);
        long retry = r.json().get("instanceId").asLong();
        assertThat(retry).isNotEqualTo(failed);
        assertThat(r.json().get("parentId").asLong()).isEqualTo(failed);
        JsonNode view = admin.get("/api/instances/" + retry).json();
        assertThat(view.get("cause").asText()).isEqualTo("retry");
        assertThat(view.get("state").asText()).isEqualTo("READY");
        assertThat(view.get("actor").asText()).isEqualTo("olga");
        JsonNode chain = view.get("triggerChain");
        assertThat(chain).hasSize(2);
        assertThat(chain.get(0).get("instanceId").asLong()).isEqualTo(failed);
        assertThat(chain.get(1).get("instanceId").asLong()).isEqualTo(retry);
        assertThat(chain.get(1).get("cause").asText()).isEqualTo("retry");
    }

    @Test
    void retry_of_a_successful_run_is_409_and_rerun_of_it_is_201() {
        admin.post("/api/tasks", ApiContractTest.eventTask("fine", "true"));
        long ok = trigger("fine");
        register();
        finish(startRun(ok), true, 0);

        Response retry = operator.post("/api/instances/" + ok + "/retry", "");
        assertThat(retry.status()).as(retry.toString()).isEqualTo(409);
        assertThat(message(retry)).contains("SUCCESS").contains("re-run it instead");

        Response rerun = operator.post("/api/instances/" + ok + "/rerun", "");
        assertThat(rerun.status()).as(rerun.toString()).isEqualTo(201);
        long again = rerun.json().get("instanceId").asLong();
        assertThat(rerun.json().get("parentId").asLong()).isEqualTo(ok);
        JsonNode view = admin.get("/api/instances/" + again).json();
        assertThat(view.get("cause").asText()).isEqualTo("manual");
        assertThat(view.get("triggerChain")).hasSize(2);
    }

    @Test
    void rerun_of_a_run_that_has_not_finished_is_409() {
        admin.post("/api/tasks", ApiContractTest.eventTask("waits", "true"));
        long id = trigger("waits");

        Response r = operator.post("/api/instances/" + id + "/rerun", "");

        assertThat(r.status()).as(r.toString()).isEqualTo(409);
        assertThat(message(r)).contains("not finished");
    }

    @Test
    void a_viewer_may_do_none_of_the_four() {
        admin.post("/api/tasks", ApiContractTest.eventTask("waits", "true"));
        long id = trigger("waits");
        ApiClient viewer = node.client(TestNode.VIEWER);

        for (String verb : List.of("terminate", "cancel", "retry", "rerun")) {
            Response r = viewer.post("/api/instances/" + id + "/" + verb, "");
            assertThat(r.status()).as(verb + ": " + r).isEqualTo(403);
        }
        assertThat(state(id)).isEqualTo("READY");
        assertThat(admin.get("/api/instances?task=waits").json().get("items")).hasSize(1);
    }

    // --- counters

    @Test
    void counts_a_run_skipped_by_overflow_skip_on_the_task_but_not_in_the_list() {
        admin.post("/api/tasks", """
                {"taskName":"skipper","trigger":{"type":"event"},"action":{"type":"shell","command":"true"},\
                "policy":{"overflow":"SKIP"}}""");
        long first = trigger("skipper");
        long second = trigger("skipper");
        assertThat(state(first)).isEqualTo("READY");
        assertThat(state(second)).isEqualTo("SKIPPED");

        JsonNode task = admin.get("/api/tasks/skipper").json();

        JsonNode counters = task.get("counters");
        assertThat(counters.get("overlapSkipped").asLong()).isEqualTo(1);
        assertThat(counters.get("queueDropped").asLong()).isZero();
        assertThat(counters.get("missedCaughtUp").asLong()).isZero();
        assertThat(counters.get("missedSlotEvents").asLong()).isZero();
        assertThat(task.get("definition").get("policy").get("overflow").asText())
                .isEqualTo("SKIP");
        assertThat(admin.get("/api/tasks").json().get("items").get(0).has("counters"))
                .isFalse();
        assertThat(node.client(TestNode.OPERATOR)
                        .post("/api/tasks/skipper/pause", "")
                        .json()
                        .has("counters"))
                .isFalse();
    }
}
