package dev.ax.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ax.store.TestDatabases;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The approval flow over HTTP with a real executor: the preview's output is shown with the
 * request, a person not on the list is refused (403), an approver lets the run start, and an
 * undecided request expires.
 */
class ApprovalApiTest {
    @TempDir
    Path dir;

    AxServer server;
    ServerClient admin;
    ServerClient alice;
    ServerClient mallory;

    @BeforeEach
    void start() {
        server = AxServer.start(AxServerTest.config(dir, TestDatabases.h2(), List.of("default"), "admin-token"));
        server.store().tx(tx -> {
            server.store().tokens().add(tx, "alice", "alice-token", "viewer", "test");
            server.store().tokens().add(tx, "mallory", "mallory-token", "operator", "test");
            return null;
        });
        admin = new ServerClient(server.url(), "admin-token");
        alice = new ServerClient(server.url(), "alice-token");
        mallory = new ServerClient(server.url(), "mallory-token");
    }

    @AfterEach
    void stop() {
        server.close();
    }

    long trigger(String task) {
        ServerClient.Response r = admin.post("/api/trigger", "{\"taskName\":\"" + task + "\"}");
        assertThat(r.status()).as(r.body()).isEqualTo(202);
        return r.json().get("instanceId").asLong();
    }

    @Test
    void preview_then_refusal_then_approval_then_the_run() {
        ServerClient.Response created = admin.post("/api/tasks", """
                {"taskName":"fix_orders","trigger":{"type":"event"},
                 "action":{"type":"shell","command":"echo fixed"},
                 "policy":{"approval":{"approvers":["alice"],"timeoutSeconds":600,
                           "preview":{"type":"shell","command":"echo 1234 rows will change"}}}}""");
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        long id = trigger("fix_orders");

        await().atMost(Duration.ofSeconds(15))
                .until(() -> "SUCCESS"
                        .equals(alice.get("/api/instances/" + id + "/approval")
                                .json()
                                .path("previewState")
                                .asText()));
        JsonNode request = alice.get("/api/instances/" + id + "/approval").json();
        assertThat(request.get("state").asText()).isEqualTo("WAITING_APPROVAL");
        assertThat(request.get("previewOutput").toString()).contains("1234 rows will change");
        assertThat(request.get("approvers").toString()).contains("alice");
        assertThat(request.get("deadline").isNull()).isFalse();

        ServerClient.Response refused = mallory.post("/api/instances/" + id + "/approve", "{\"comment\":\"sure\"}");
        assertThat(refused.status()).as(refused.body()).isEqualTo(403);
        assertThat(refused.body()).contains("approvers: alice");

        ServerClient.Response ok =
                alice.post("/api/instances/" + id + "/approve", "{\"comment\":\"1234 is expected\"}");
        assertThat(ok.status()).as(ok.body()).isEqualTo(200);
        await().atMost(Duration.ofSeconds(15))
                .until(() -> admin.instance(id).get("state").asText().equals("SUCCESS"));

        List<String> events = new ArrayList<>();
        admin.get("/api/instances/" + id + "/events")
                .json()
                .get("items")
                .forEach(e -> events.add(
                        e.get("type").asText() + " by " + e.get("actor").asText()));
        assertThat(events)
                .containsSubsequence(
                        "APPROVAL_REQUESTED by scheduler", "APPROVED by alice", "SUCCEEDED by executor:node-1-local");
    }

    @Test
    void an_undecided_request_expires() {
        assertThat(admin.post("/api/tasks", """
                {"taskName":"gated","trigger":{"type":"event"},"action":{"type":"shell","command":"true"},
                 "policy":{"approval":{"timeoutSeconds":1}}}""").status()).isEqualTo(201);
        long id = trigger("gated");
        await().atMost(Duration.ofSeconds(15))
                .until(() -> admin.instance(id).get("state").asText().equals("CANCELED"));
        List<String> events = new ArrayList<>();
        admin.get("/api/instances/" + id + "/events")
                .json()
                .get("items")
                .forEach(e -> events.add(e.get("type").asText()));
        assertThat(events).contains("APPROVAL_EXPIRED");
        assertThat(alice.post("/api/instances/" + id + "/approve", "{}").status())
                .isEqualTo(409);
    }

    @Test
    void a_running_shell_job_asks_for_approval_and_continues_once_approved() {
        String api = server.url() + "/api/instances/$AX_INSTANCE_ID";
        String auth = "-H 'Authorization: Bearer admin-token'";
        String script = "curl -sf -X POST " + auth
                + " -H 'Content-Type: application/json' -d '{\\\"summary\\\":\\\"3 rows\\\"}' "
                + api + "/approval-request > /dev/null || exit 9; "
                + "while true; do s=$(curl -sf " + auth + " " + api + " | grep -o '\\\"state\\\":\\\"[A-Z_]*\\\"'); "
                + "case \\\"$s\\\" in *RUNNING*) echo approved; exit 0;; *WAITING*) sleep 0.2;; *) exit 8;; esac; done";
        ServerClient.Response created = admin.post(
                "/api/tasks",
                "{\"taskName\":\"careful\",\"trigger\":{\"type\":\"event\"},"
                        + "\"action\":{\"type\":\"shell\",\"command\":\"" + script + "\"}}");
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        long id = trigger("careful");
        await().atMost(Duration.ofSeconds(20))
                .until(() -> admin.instance(id).get("state").asText().equals("WAITING_APPROVAL"));
        assertThat(mallory.post("/api/instances/" + id + "/approve", "{\"comment\":\"3 is fine\"}")
                        .status())
                .isEqualTo(200);
        await().atMost(Duration.ofSeconds(20))
                .until(() -> admin.instance(id).get("state").asText().matches("SUCCESS|FAILED|CANCELED"));
        assertThat(admin.instance(id).get("state").asText())
                .as(admin.instance(id) + "\n"
                        + admin.get("/api/instances/" + id + "/log?format=text").body() + "\n"
                        + admin.get("/api/instances/" + id + "/events").body())
                .isEqualTo("SUCCESS");
        assertThat(admin.get("/api/instances/" + id + "/log?format=text").body())
                .contains("approved");
    }
}
