package dev.ax.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ax.api.ApiClient.Response;
import dev.ax.domain.run.Cause;
import dev.ax.store.TestDatabases;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Tokens for people and machines, teams and the roles they grant, over the real API: who may do what to which
 * team's tasks, what a refusal says, and that nothing changes when it refuses.
 */
class AccessApiTest {
    static TestNode node;
    static ApiClient admin;

    @BeforeAll
    static void start() {
        node = new TestNode(TestDatabases.h2());
        admin = node.client(TestNode.ADMIN);
        for (String team : List.of("data", "finance")) {
            assertThat(admin.post("/api/teams", Map.of("name", team, "description", "the " + team + " team"))
                            .status())
                    .isEqualTo(201);
        }
        task("sync_orders", "data");
        task("ledger", "finance");
        task("global_report", null);
    }

    @AfterAll
    static void stop() {
        node.close();
    }

    static void task(String name, String team) {
        String teamField = team == null ? "" : ",\"team\":\"" + team + "\"";
        Response r = admin.post(
                "/api/tasks",
                "{\"taskName\":\"" + name + "\",\"trigger\":{\"type\":\"event\"},"
                        + "\"action\":{\"type\":\"shell\",\"command\":\"echo " + name + "\"}" + teamField + "}");
        assertThat(r.status()).as(r.toString()).isEqualTo(201);
    }

    /** Makes a token through the API and returns a client holding it. */
    static ApiClient token(Map<String, Object> request) {
        Response r = admin.post("/api/tokens", request);
        assertThat(r.status()).as(r.toString()).isEqualTo(201);
        String token = r.json().get("token").asText();
        assertThat(token).startsWith("axt_");
        return node.client(token);
    }

    static String message(Response r) {
        return r.json().get("error").get("message").asText();
    }

    @Test
    void an_admin_makes_a_token_that_is_shown_once_and_never_listed() {
        Response made = admin.post(
                "/api/tokens",
                Map.of(
                        "name",
                        "alice-once",
                        "owner",
                        "alice",
                        "role",
                        "viewer",
                        "teams",
                        Map.of("data", "operator"),
                        "expiresIn",
                        "P90D"));
        assertThat(made.status()).isEqualTo(201);
        String token = made.json().get("token").asText();
        assertThat(made.json().get("info").get("expiresAt").asText()).isNotEmpty();

        JsonNode me = node.client(token).get("/api/me").json();
        assertThat(me.get("name").asText()).isEqualTo("alice");
        assertThat(me.get("via").asText()).isEqualTo("token:alice-once");
        assertThat(me.get("teams").get("data").asText()).isEqualTo("operator");

        Response list = admin.get("/api/tokens");
        assertThat(list.body()).contains("alice-once").doesNotContain(token);
        JsonNode listed = find(list.json().get("items"), "alice-once");
        assertThat(listed.get("owner").asText()).isEqualTo("alice");
        assertThat(listed.get("createdBy").asText()).isEqualTo("admin");
        assertThat(listed.get("lastUsedAt").isNull())
                .as("used by the /api/me above")
                .isFalse();
        assertThat(admin.post("/api/tokens", Map.of("name", "alice-once", "role", "viewer"))
                        .status())
                .isEqualTo(409);
    }

    @Test
    void a_bad_token_request_names_the_field_and_makes_nothing() {
        Response r = admin.post(
                "/api/tokens", Map.of("name", "nobody", "role", "viewer", "teams", Map.of("nowhere", "admin")));
        assertThat(r.status()).isEqualTo(400);
        assertThat(r.json().get("error").get("fields").get(0).get("field").asText())
                .isEqualTo("teams.nowhere");
        assertThat(admin.get("/api/tokens").body()).doesNotContain("nobody");
    }

    @Test
    void a_revoked_token_is_refused_at_once_saying_when_and_by_whom() {
        ApiClient bob = token(Map.of("name", "bob-revoked", "role", "operator"));
        assertThat(bob.get("/api/tasks").status()).isEqualTo(200);

        assertThat(admin.delete("/api/tokens/bob-revoked").status()).isEqualTo(204);

        Response refused = bob.get("/api/tasks");
        assertThat(refused.status()).isEqualTo(401);
        assertThat(message(refused))
                .startsWith("token 'bob-revoked' was revoked at ")
                .endsWith(" by admin");
        assertThat(items(admin.get("/api/audit?actor=bob-revoked"))).first().satisfies(e -> {
            assertThat(e.get("status").asInt())
                    .as("who tried with a revoked token is told in the audit")
                    .isEqualTo(401);
            assertThat(e.get("via").asText()).isEqualTo("token:bob-revoked");
        });
        assertThat(admin.delete("/api/tokens/bob-revoked").status()).isEqualTo(404);
    }

    @Test
    void an_expired_token_is_refused_with_a_message_that_says_so() {
        ApiClient carl = token(Map.of("name", "carl-expired", "role", "viewer", "expiresIn", "P1D"));
        node.store.tx(tx -> tx.update(
                "UPDATE ax_token SET expires_at = ? WHERE name = 'carl-expired'",
                Instant.parse("2020-01-01T00:00:00Z")));

        Response refused = carl.get("/api/tasks");
        assertThat(refused.status()).isEqualTo(401);
        assertThat(message(refused))
                .isEqualTo("token 'carl-expired' expired at 2020-01-01T00:00:00Z; ask an admin for a new one");
        JsonNode listed = find(admin.get("/api/tokens").json().get("items"), "carl-expired");
        assertThat(listed.get("expired").asBoolean()).isTrue();
    }

    @Test
    void a_person_lists_and_revokes_their_own_tokens_and_no_one_elses() {
        ApiClient dana = token(Map.of("name", "dana", "role", "viewer"));
        token(Map.of("name", "dana-ci", "owner", "dana", "role", "operator"));
        token(Map.of("name", "erin", "role", "viewer"));

        List<String> mine = names(dana.get("/api/tokens").json().get("items"));
        assertThat(mine).containsExactly("dana", "dana-ci");
        assertThat(dana.get("/api/tokens?owner=erin").status()).isEqualTo(403);

        Response refused = dana.delete("/api/tokens/erin");
        assertThat(refused.status()).isEqualTo(403);
        assertThat(message(refused)).contains("erin is erin's");
        assertThat(names(admin.get("/api/tokens").json().get("items"))).contains("erin");

        assertThat(dana.delete("/api/tokens/dana-ci").status()).isEqualTo(204);
        assertThat(names(dana.get("/api/tokens").json().get("items"))).containsExactly("dana");
    }

    @Test
    void an_operator_of_a_team_runs_its_tasks_and_nothing_of_another_team() {
        ApiClient alice = token(
                Map.of("name", "alice-ops", "owner", "alice", "role", "viewer", "teams", Map.of("data", "operator")));

        assertThat(alice.post("/api/tasks/sync_orders/trigger", Map.of()).status())
                .isEqualTo(202);
        assertThat(alice.post("/api/trigger", Map.of("taskName", "sync_orders")).status())
                .isEqualTo(202);
        assertThat(alice.post("/api/tasks/sync_orders/pause", Map.of()).status())
                .isEqualTo(200);
        assertThat(alice.post("/api/tasks/sync_orders/resume", Map.of()).status())
                .isEqualTo(200);
        Response daily = admin.post("/api/tasks", """
                {"taskName":"data_daily","team":"data","trigger":{"type":"cron","expression":"0 2 * * *"},
                 "action":{"type":"shell","command":"echo {{date}}"}}""");
        assertThat(daily.status()).as(daily.toString()).isEqualTo(201);
        Response backfill = alice.post(
                "/api/tasks/data_daily/backfill", Map.of("from", "2026-01-01", "to", "2026-01-03", "dryRun", true));
        assertThat(backfill.status()).as(backfill.toString()).isEqualTo(200);

        Response other = alice.post("/api/tasks/ledger/trigger", Map.of());
        assertThat(other.status()).isEqualTo(403);
        assertThat(message(other))
                .isEqualTo("alice (viewer; operator in data) may not run a task now, by hand: that needs operator"
                        + " in team finance, or operator everywhere");
        Response event = alice.post("/api/trigger", Map.of("taskName", "ledger"));
        assertThat(event.status()).isEqualTo(403);
        assertThat(message(event)).contains("operator in team finance");
        Response teamless = alice.post("/api/tasks/global_report/pause", Map.of());
        assertThat(teamless.status()).isEqualTo(403);
        assertThat(message(teamless)).contains("operator everywhere (what it acts on belongs to no team)");
        assertThat(admin.get("/api/tasks/ledger").json().get("paused").asBoolean())
                .isFalse();

        // A run of the team's task: the operator may act on it; a run of another team's task: not.
        long ours = node.node.tasks().trigger("sync_orders", Map.of(), Cause.MANUAL, "test");
        long theirs = node.node.tasks().trigger("ledger", Map.of(), Cause.MANUAL, "test");
        assertThat(alice.post("/api/instances/" + ours + "/cancel", Map.of()).status())
                .isEqualTo(200);
        assertThat(alice.post("/api/instances/" + theirs + "/cancel", Map.of()).status())
                .isEqualTo(403);
        assertThat(admin.get("/api/instances/" + theirs).json().get("state").asText())
                .isNotEqualTo("CANCELED");
        // Reads are everyone's.
        assertThat(alice.get("/api/tasks/ledger").status()).isEqualTo(200);
    }

    @Test
    void a_team_admin_edits_its_own_teams_tasks_and_cannot_take_one_elsewhere() {
        ApiClient bob =
                token(Map.of("name", "bob-admin", "owner", "bob", "role", "viewer", "teams", Map.of("data", "admin")));

        Response created = bob.post(
                "/api/tasks",
                "{\"taskName\":\"data_export\",\"team\":\"data\",\"trigger\":{\"type\":\"event\"},"
                        + "\"action\":{\"type\":\"shell\",\"command\":\"./export.sh --all\"}}");
        assertThat(created.status()).as(created.toString()).isEqualTo(201);
        assertThat(bob.put(
                                "/api/tasks/data_export",
                                "{\"taskName\":\"data_export\",\"team\":\"data\",\"trigger\":{\"type\":\"event\"},"
                                        + "\"action\":{\"type\":\"shell\",\"command\":\"./export.sh --changed\"}}")
                        .status())
                .isEqualTo(200);

        Response move = bob.put(
                "/api/tasks/data_export",
                "{\"taskName\":\"data_export\",\"team\":\"finance\",\"trigger\":{\"type\":\"event\"},"
                        + "\"action\":{\"type\":\"shell\",\"command\":\"./export.sh\"}}");
        assertThat(move.status()).isEqualTo(403);
        assertThat(message(move)).contains("admin in team finance");
        Response noTeam = bob.post(
                "/api/tasks",
                "{\"taskName\":\"stray\",\"trigger\":{\"type\":\"event\"},"
                        + "\"action\":{\"type\":\"shell\",\"command\":\"true\"}}");
        assertThat(noTeam.status()).isEqualTo(403);
        assertThat(message(noTeam)).contains("admin everywhere (what it acts on belongs to no team)");
        assertThat(bob.delete("/api/tasks/ledger").status()).isEqualTo(403);
        assertThat(admin.get("/api/tasks/stray").status()).isEqualTo(404);
        assertThat(admin.get("/api/tasks/data_export")
                        .json()
                        .get("definition")
                        .get("team")
                        .asText())
                .isEqualTo("data");

        // Only a global admin manages tokens, secrets and teams.
        assertThat(bob.post("/api/tokens", Map.of("name", "bobs-friend", "role", "admin"))
                        .status())
                .isEqualTo(403);
        assertThat(bob.put("/api/secrets/data_pw", ApiClient.write(Map.of("value", "x")))
                        .status())
                .isEqualTo(403);
        assertThat(bob.post("/api/teams", Map.of("name", "bobs-team")).status()).isEqualTo(403);
        assertThat(bob.delete("/api/teams/data").status()).isEqualTo(403);
    }

    @Test
    void a_task_of_a_team_that_does_not_exist_is_refused_on_the_team_field() {
        Response r = admin.post(
                "/api/tasks",
                "{\"taskName\":\"orphan\",\"team\":\"marketing\",\"trigger\":{\"type\":\"event\"},"
                        + "\"action\":{\"type\":\"shell\",\"command\":\"true\"}}");
        assertThat(r.status()).isEqualTo(400);
        JsonNode field = r.json().get("error").get("fields").get(0);
        assertThat(field.get("field").asText()).isEqualTo("team");
        assertThat(field.get("reason").asText()).contains("there is no team marketing");
        assertThat(admin.get("/api/tasks/orphan").status()).isEqualTo(404);
    }

    @Test
    void a_team_that_tasks_or_tokens_still_use_cannot_be_deleted() {
        assertThat(admin.post("/api/teams", Map.of("name", "ops")).status()).isEqualTo(201);
        task("ops_cleanup", "ops");
        token(Map.of("name", "olive", "role", "viewer", "teams", Map.of("ops", "operator")));

        Response refused = admin.delete("/api/teams/ops");
        assertThat(refused.status()).isEqualTo(409);
        assertThat(message(refused))
                .isEqualTo("team ops is still used by task ops_cleanup, token olive; move or delete those first");

        JsonNode team = admin.get("/api/teams/ops").json();
        assertThat(team.get("tasks")).extracting(JsonNode::asText).containsExactly("ops_cleanup");
        assertThat(team.get("members").get("olive").asText()).isEqualTo("operator");

        assertThat(admin.delete("/api/tasks/ops_cleanup").status()).isEqualTo(204);
        assertThat(admin.delete("/api/tokens/olive").status()).isEqualTo(204);
        assertThat(admin.delete("/api/teams/ops").status()).isEqualTo(204);
    }

    @Test
    void an_executor_token_limited_to_groups_registers_and_polls_only_for_them() {
        ApiClient exec = token(Map.of("name", "exec-orders", "role", "executor", "groups", List.of("orders")));
        Map<String, Object> register = Map.of(
                "executorId",
                "orders-1",
                "session",
                "s1",
                "groups",
                List.of("orders"),
                "host",
                "box",
                "pid",
                1,
                "version",
                "test",
                "held",
                List.of());

        assertThat(exec.post("/api/executor/register", register).status()).isEqualTo(200);
        assertThat(exec.post(
                                "/api/executor/poll",
                                Map.of(
                                        "executorId",
                                        "orders-1",
                                        "groups",
                                        List.of("orders"),
                                        "max",
                                        1,
                                        "waitMillis",
                                        0))
                        .status())
                .isEqualTo(200);

        Response otherGroup = exec.post(
                "/api/executor/poll",
                Map.of("executorId", "orders-1", "groups", List.of("billing"), "max", 1, "waitMillis", 0));
        assertThat(otherGroup.status()).isEqualTo(403);
        assertThat(message(otherGroup))
                .isEqualTo("token exec-orders serves groups orders only; it may not serve billing");
        assertThat(exec.post(
                                "/api/executor/register",
                                Map.of(
                                        "executorId",
                                        "orders-2",
                                        "session",
                                        "s2",
                                        "groups",
                                        List.of("orders", "billing"),
                                        "host",
                                        "box",
                                        "pid",
                                        1,
                                        "version",
                                        "test",
                                        "held",
                                        List.of()))
                        .status())
                .isEqualTo(403);

        // An executor id another token registered: no reports for it.
        node.client(TestNode.EXECUTOR)
                .post(
                        "/api/executor/register",
                        Map.of(
                                "executorId",
                                "general-1",
                                "session",
                                "g",
                                "groups",
                                List.of("default"),
                                "host",
                                "box",
                                "pid",
                                2,
                                "version",
                                "test",
                                "held",
                                List.of()));
        Response foreign = exec.post(
                "/api/executor/heartbeat", Map.of("executorId", "general-1", "session", "g", "held", List.of()));
        assertThat(foreign.status()).isEqualTo(403);
        assertThat(message(foreign)).contains("did not register executor general-1");
        Response takeover = exec.post(
                "/api/executor/register",
                Map.of(
                        "executorId",
                        "general-1",
                        "session",
                        "x",
                        "groups",
                        List.of("orders"),
                        "host",
                        "box",
                        "pid",
                        3,
                        "version",
                        "test",
                        "held",
                        List.of()));
        assertThat(takeover.status()).isEqualTo(403);
        assertThat(message(takeover))
                .isEqualTo("executor id general-1 is registered with token exec-1; token exec-orders may not speak"
                        + " for it (start the executor with another --id)");

        // Nothing but the protocol.
        for (Response r : List.of(
                exec.get("/api/tasks"),
                exec.get("/api/instances"),
                exec.post("/api/trigger", Map.of("taskName", "sync_orders")),
                exec.get("/api/me"))) {
            assertThat(r.status()).as(r.toString()).isEqualTo(403);
        }
    }

    @Test
    void four_eyes_takes_two_people_of_the_team() {
        ApiClient alice = token(
                Map.of("name", "alice-4e", "owner", "alice", "role", "viewer", "teams", Map.of("data", "operator")));
        ApiClient carol = token(
                Map.of("name", "carol-4e", "owner", "carol", "role", "viewer", "teams", Map.of("data", "operator")));
        ApiClient dave = token(Map.of("name", "dave-4e", "owner", "dave", "role", "viewer"));
        Response created = admin.post("/api/tasks", """
                {"taskName":"payout","team":"data","trigger":{"type":"event"},"action":{"type":"shell","command":"echo pay"},
                 "policy":{"approval":{"approvers":["team:data/operator"],"fourEyes":true}}}""");
        assertThat(created.status()).as(created.toString()).isEqualTo(201);

        long id = alice.post("/api/tasks/payout/trigger", Map.of())
                .json()
                .get("instanceId")
                .asLong();
        assertThat(admin.get("/api/instances/" + id).json().get("state").asText())
                .isEqualTo("WAITING_APPROVAL");

        Response self = alice.post("/api/instances/" + id + "/approve", Map.of("comment", "mine"));
        assertThat(self.status()).isEqualTo(403);
        assertThat(message(self)).isEqualTo("four-eyes rule: alice triggered run " + id + " and may not decide on it");
        Response outsider = dave.post("/api/instances/" + id + "/approve", Map.of());
        assertThat(outsider.status()).isEqualTo(403);
        assertThat(message(outsider)).contains("approvers: team:data/operator");

        assertThat(carol.post("/api/instances/" + id + "/approve", Map.of("comment", "checked"))
                        .status())
                .isEqualTo(200);
        JsonNode events = admin.get("/api/instances/" + id + "/events").json().get("items");
        assertThat(events).anySatisfy(e -> {
            assertThat(e.get("type").asText()).isEqualTo("APPROVED");
            assertThat(e.get("actor").asText()).isEqualTo("carol");
        });
    }

    @Test
    void every_action_and_every_refused_caller_is_audited_once_with_its_actor_team_and_address() {
        ApiClient fred = token(
                Map.of("name", "fred-audit", "owner", "fred", "role", "viewer", "teams", Map.of("data", "operator")));
        assertThat(fred.post("/api/tasks/sync_orders/pause", Map.of()).status()).isEqualTo(200);
        assertThat(fred.post("/api/tasks/sync_orders/resume", Map.of()).status())
                .isEqualTo(200);
        assertThat(fred.post("/api/tasks/ledger/pause", Map.of()).status()).isEqualTo(403);
        long run = fred.post("/api/trigger", Map.of("taskName", "sync_orders"))
                .json()
                .get("instanceId")
                .asLong();
        assertThat(node.client("not-a-token").get("/api/tasks").status()).isEqualTo(401);

        List<JsonNode> freds = items(admin.get("/api/audit?actor=fred"));
        assertThat(freds)
                .extracting(e -> e.get("action").asText() + " "
                        + e.get("target").asText() + " " + e.get("outcome").asText())
                .containsExactly(
                        "task.trigger task:sync_orders ok",
                        "task.pause task:ledger refused",
                        "task.resume task:sync_orders ok",
                        "task.pause task:sync_orders ok");
        JsonNode trigger = freds.getFirst();
        assertThat(trigger.get("team").asText()).isEqualTo("data");
        assertThat(trigger.get("via").asText()).isEqualTo("token:fred-audit");
        assertThat(trigger.get("address").asText()).isEqualTo("127.0.0.1");
        assertThat(trigger.get("message").asText()).isEqualTo("run " + run);
        assertThat(freds.get(1).get("team").asText()).isEqualTo("finance");
        assertThat(freds.get(1).get("status").asInt()).isEqualTo(403);

        assertThat(items(admin.get("/api/audit?target=task:ledger&actor=fred"))).hasSize(1);
        assertThat(items(admin.get("/api/audit?team=finance&actor=fred"))).hasSize(1);
        assertThat(items(admin.get("/api/audit?actor=fred&from=2999-01-01"))).isEmpty();
        assertThat(items(admin.get("/api/audit?actor=anonymous"))).anySatisfy(e -> {
            assertThat(e.get("status").asInt()).isEqualTo(401);
            assertThat(e.get("action").asText()).isEqualTo("task.read");
        });
        assertThat(admin.get("/api/audit?from=yesterday").status()).isEqualTo(400);
    }

    @Test
    void an_edit_is_audited_with_its_diff_and_a_new_token_without_its_value() {
        Response made = admin.post("/api/tokens", Map.of("name", "gina", "role", "viewer"));
        String token = made.json().get("token").asText();
        assertThat(admin.put(
                                "/api/tasks/global_report",
                                "{\"taskName\":\"global_report\",\"trigger\":{\"type\":\"event\"},"
                                        + "\"action\":{\"type\":\"shell\",\"command\":\"echo changed\"}}")
                        .status())
                .isEqualTo(200);

        JsonNode edit = items(admin.get("/api/audit?target=task:global_report")).getFirst();
        assertThat(edit.get("action").asText()).isEqualTo("task.update");
        assertThat(edit.get("actor").asText()).isEqualTo("admin");
        assertThat(edit.get("diff").toString()).contains("action.command").contains("echo changed");

        JsonNode created = items(admin.get("/api/audit?target=token:gina")).getFirst();
        assertThat(created.get("action").asText()).isEqualTo("token.create");
        assertThat(created.get("message").asText()).isEqualTo("for gina: viewer");
        assertThat(admin.get("/api/audit").body()).doesNotContain(token);
    }

    @Test
    void a_teams_admin_reads_that_teams_audit_and_no_other() {
        ApiClient hana = token(Map.of("name", "hana", "role", "viewer", "teams", Map.of("data", "admin")));
        assertThat(hana.get("/api/audit?team=data").status()).isEqualTo(200);
        assertThat(hana.get("/api/audit?team=finance").status()).isEqualTo(403);
        assertThat(hana.get("/api/audit").status()).isEqualTo(403);
    }

    static List<JsonNode> items(Response r) {
        assertThat(r.status()).as(r.toString()).isEqualTo(200);
        List<JsonNode> out = new ArrayList<>();
        r.json().get("items").forEach(out::add);
        return out;
    }

    static List<String> names(JsonNode items) {
        List<String> out = new ArrayList<>();
        items.forEach(i -> out.add(i.get("name").asText()));
        return out;
    }

    static JsonNode find(JsonNode items, String name) {
        for (JsonNode i : items) {
            if (i.get("name").asText().equals(name)) {
                return i;
            }
        }
        throw new AssertionError("no " + name + " in " + items);
    }
}
