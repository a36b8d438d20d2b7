package dev.ax.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ax.api.ApiClient.Response;
import dev.ax.store.TestDatabases;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Canary rollouts and test runs over real HTTP: request shapes, statuses and field errors. */
class CanaryApiTest {
    TestNode node;
    ApiClient admin;

    @BeforeEach
    void start() {
        node = new TestNode(TestDatabases.h2());
        admin = node.client(TestNode.ADMIN);
    }

    @AfterEach
    void stop() {
        node.close();
    }

    static String task(String command) {
        return """
                {"taskName":"sync","trigger":{"type":"event"},"action":{"type":"shell","command":"%s"},"policy":{"overflow":"ALLOW"}}""".formatted(command);
    }

    @Test
    void a_canary_is_started_shown_promoted_and_recorded() {
        assertThat(admin.post("/api/tasks", task("echo v1")).status()).isEqualTo(201);
        Response started = admin.put("/api/tasks/sync?rollout=canary&percent=10&margin=30", task("echo v2"));
        assertThat(started.status()).as(started.toString()).isEqualTo(202);
        assertThat(started.json().get("version").asInt()).isEqualTo(1);
        assertThat(started.json().at("/canary/canaryVersion").asInt()).isEqualTo(2);
        assertThat(started.json().at("/canary/percent").asInt()).isEqualTo(10);
        assertThat(started.json().at("/canary/marginPoints").asInt()).isEqualTo(30);

        JsonNode shown = admin.get("/api/tasks/sync").json();
        assertThat(shown.get("taskName").asText()).isEqualTo("sync");
        assertThat(shown.at("/canary/state").asText()).isEqualTo("ACTIVE");
        assertThat(shown.at("/canary/stableVersion").asInt()).isEqualTo(1);
        assertThat(shown.at("/canary/startedBy").asText()).isEqualTo("admin");
        assertThat(shown.has("counters")).isTrue();

        Response again = admin.put("/api/tasks/sync?rollout=canary&runs=3", task("echo v3"));
        assertThat(again.status()).isEqualTo(409);
        assertThat(again.json().at("/error/message").asText()).contains("already has a canary in progress");
        assertThat(admin.put("/api/tasks/sync", task("echo v3")).status()).isEqualTo(409);

        assertThat(node.client(TestNode.OPERATOR)
                        .post("/api/tasks/sync/canary/promote", "")
                        .status())
                .isEqualTo(403);
        Response promoted = admin.post("/api/tasks/sync/canary/promote", "");
        assertThat(promoted.status()).as(promoted.toString()).isEqualTo(200);
        assertThat(promoted.json().get("version").asInt()).isEqualTo(3);
        assertThat(promoted.json().at("/definition/action/command").asText()).isEqualTo("echo v2");
        assertThat(admin.get("/api/tasks/sync").json().has("canary")).isFalse();
        JsonNode versions = admin.get("/api/tasks/sync/versions").json().get("items");
        assertThat(versions.get(0).get("change").asText()).isEqualTo("PROMOTE");
        assertThat(versions.get(1).get("change").asText()).isEqualTo("CANARY");
        assertThat(admin.post("/api/tasks/sync/canary/rollback", "").status()).isEqualTo(409);
    }

    @Test
    void bad_rollout_requests_get_the_field_and_change_nothing() {
        admin.post("/api/tasks", task("echo v1"));
        assertField(admin.put("/api/tasks/sync?rollout=canary", task("echo v2")), "percent");
        assertField(admin.put("/api/tasks/sync?rollout=canary&percent=100", task("echo v2")), "percent");
        assertField(admin.put("/api/tasks/sync?rollout=canary&percent=10&runs=3", task("echo v2")), "runs");
        assertField(admin.put("/api/tasks/sync?rollout=canary&runs=0", task("echo v2")), "runs");
        assertField(admin.put("/api/tasks/sync?rollout=blue-green&percent=10", task("echo v2")), "rollout");
        assertField(admin.put("/api/tasks/sync?percent=10", task("echo v2")), "percent");
        assertField(admin.put("/api/tasks/sync?rollout=canary&percent=10", task("")), "action.command");
        assertField(
                admin.put(
                        "/api/tasks/sync?rollout=canary&percent=10",
                        task("echo v2")
                                .replace("{\"type\":\"event\"}", "{\"type\":\"cron\",\"expression\":\"0 2 * * *\"}")),
                "trigger");
        assertThat(admin.get("/api/tasks/sync/versions").json().get("items")).hasSize(1);
        assertThat(admin.get("/api/tasks/sync").json().has("canary")).isFalse();
        assertThat(admin.put(
                                "/api/tasks/nope?rollout=canary&percent=10",
                                task("echo v2").replace("sync", "nope"))
                        .status())
                .isEqualTo(404);
    }

    @Test
    void a_test_run_of_a_draft_is_accepted_and_a_bad_draft_is_refused_with_the_field() {
        admin.post("/api/tasks", task("echo v1"));
        Response ok = admin.post("/api/tasks/sync/test-run", task("echo draft"));
        assertThat(ok.status()).as(ok.toString()).isEqualTo(202);
        long id = ok.json().get("instanceId").asLong();
        assertThat(ok.json().get("draftVersion").asInt()).isNegative();
        JsonNode run = admin.get("/api/instances/" + id).json();
        assertThat(run.get("cause").asText()).isEqualTo("test");
        assertThat(admin.get("/api/tasks/sync").json().get("version").asInt()).isEqualTo(1);
        assertThat(admin.get("/api/tasks/sync/versions").json().get("items")).hasSize(1);

        Response withParams = admin.post(
                "/api/tasks/sync/test-run",
                "{\"definition\":" + task("echo {{params.day}}") + ",\"params\":{\"day\":\"2026-11-29\"}}");
        assertThat(withParams.status()).as(withParams.toString()).isEqualTo(202);

        assertField(admin.post("/api/tasks/sync/test-run", task("echo {{nope")), "action.command");
        assertField(admin.post("/api/tasks/sync/test-run", task("echo {{params.day}}")), "params.day");
        assertThat(admin.get("/api/instances?task=sync").json().get("items")).hasSize(2);
        // A task not saved yet: the run is made, the task is not.
        assertThat(admin.post("/api/tasks/fresh/test-run", task("echo hi").replace("sync", "fresh"))
                        .status())
                .isEqualTo(202);
        assertThat(admin.get("/api/tasks/fresh").status()).isEqualTo(404);
    }

    static void assertField(Response r, String field) {
        assertThat(r.status()).as(r.toString()).isEqualTo(400);
        assertThat(r.json().at("/error/fields"))
                .as(r.toString())
                .anySatisfy(f -> assertThat(f.get("field").asText()).isEqualTo(field));
    }
}
