package dev.ax.console;

import static dev.ax.console.WebClient.form;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.domain.access.Grants;
import dev.ax.domain.access.Role;
import dev.ax.store.AuditStore.AuditRow;
import dev.ax.store.AuditStore.Filter;
import dev.ax.store.TestDatabases;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Teams and tokens in the console over HTTP: who is offered what, what the server refuses anyway, and the audit of it. */
class AccessConsoleTest {
    static ConsoleServer server;
    static final String ALICE = "alice-token";
    static final String BOB = "bob-token";

    @BeforeAll
    static void start() {
        server = new ConsoleServer(TestDatabases.h2());
        server.node.teams().create(Map.of("name", "data"), "test");
        server.node.teams().create(Map.of("name", "finance"), "test");
        server.store.tx(tx -> {
            server.store
                    .tokens()
                    .create(
                            tx,
                            "alice",
                            "alice",
                            ALICE,
                            new Grants(Role.VIEWER, Map.of("data", Role.OPERATOR), List.of()),
                            null,
                            "test");
            server.store
                    .tokens()
                    .create(
                            tx,
                            "bob",
                            "bob",
                            BOB,
                            new Grants(Role.VIEWER, Map.of("data", Role.ADMIN), List.of()),
                            null,
                            "test");
            return null;
        });
        for (String[] t : new String[][] {{"sync_orders", "data"}, {"ledger", "finance"}}) {
            server.node
                    .tasks()
                    .create(
                            Map.of(
                                    "taskName",
                                    t[0],
                                    "team",
                                    t[1],
                                    "trigger",
                                    Map.of("type", "event"),
                                    "action",
                                    Map.of("type", "shell", "command", "echo " + t[0])),
                            "test");
        }
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    WebClient web() {
        return new WebClient(server.url());
    }

    boolean taskExists(String name) {
        return server.store.tx(tx -> server.store.tasks().find(tx, name)).isPresent();
    }

    List<AuditRow> audit(String actor) {
        return server.node.audit().list(new Filter(actor, null, null, null, null, Long.MAX_VALUE, 50));
    }

    @Test
    void a_team_operator_is_offered_its_teams_tasks_and_refused_the_others_even_when_it_posts_anyway() {
        WebClient alice = web();
        String csrf = alice.login(ALICE);
        assertThat(alice.get("/tasks/sync_orders").body())
                .contains("id=\"trigger\"")
                .contains("id=\"pause\"")
                .doesNotContain("id=\"edit\"")
                .contains("team <a href=\"/teams/data\">data</a>");
        assertThat(alice.get("/tasks/ledger").body())
                .doesNotContain("id=\"trigger\"")
                .doesNotContain("id=\"pause\"");

        alice.post("/tasks/ledger/pause", form("csrf", csrf, "back", "/tasks/ledger"));
        assertThat(alice.get("/tasks/ledger").body())
                .contains("flash-error")
                .contains(
                        "alice (viewer; operator in data) may not pause a task of team finance: that needs operator in team finance,"
                                + " or operator everywhere");
        assertThat(server.store
                        .tx(tx -> server.store.tasks().find(tx, "ledger"))
                        .orElseThrow()
                        .paused())
                .isFalse();

        alice.post("/tasks/sync_orders/pause", form("csrf", csrf, "back", "/tasks/sync_orders"));
        assertThat(server.store
                        .tx(tx -> server.store.tasks().find(tx, "sync_orders"))
                        .orElseThrow()
                        .paused())
                .isTrue();
        alice.post("/tasks/sync_orders/resume", form("csrf", csrf));

        List<AuditRow> entries = audit("alice");
        assertThat(entries)
                .extracting(r -> r.entry().action() + " " + r.entry().target() + " "
                        + r.entry().outcome() + " " + r.entry().team())
                .contains(
                        "task.pause task:ledger refused finance",
                        "task.pause task:sync_orders ok data",
                        "login token:alice ok null");
        assertThat(entries).allSatisfy(r -> assertThat(r.entry().address()).isEqualTo("127.0.0.1"));
    }

    @Test
    void a_team_admin_writes_tasks_of_its_team_only_and_a_refused_draft_stays_in_the_editor() {
        WebClient bob = web();
        String csrf = bob.login(BOB);
        assertThat(bob.get("/tasks").body()).contains("id=\"new-task\"");
        assertThat(bob.get("/new-task").body()).contains("\"team\": \"data\"");

        String elsewhere = "{\"taskName\":\"bobs_ledger\",\"team\":\"finance\",\"trigger\":{\"type\":\"event\"},"
                + "\"action\":{\"type\":\"shell\",\"command\":\"echo x\"}}";
        WebClient.Page refused = bob.post("/new-task", form("csrf", csrf, "definition", elsewhere));
        assertThat(refused.status()).isEqualTo(403);
        assertThat(refused.body()).contains("bobs_ledger").contains("that needs admin in team finance");
        assertThat(taskExists("bobs_ledger")).isFalse();

        String ours = elsewhere.replace("finance", "data").replace("bobs_ledger", "bobs_export");
        assertThat(bob.post("/new-task", form("csrf", csrf, "definition", ours)).status())
                .isEqualTo(303);
        assertThat(taskExists("bobs_export")).isTrue();
        assertThat(audit("bob"))
                .extracting(r -> r.entry().action() + " " + r.entry().target() + " "
                        + r.entry().status())
                .contains("task.create task:bobs_export 200", "task.create task:bobs_ledger 403");
    }

    @Test
    void only_a_global_admin_is_offered_tokens_and_the_whole_audit_log() {
        WebClient vera = web();
        vera.login(ConsoleServer.VIEWER);
        String page = vera.get("/tasks").body();
        assertThat(page)
                .doesNotContain("id=\"nav-tokens\"")
                .doesNotContain("id=\"nav-audit\"")
                .contains("id=\"nav-my-tokens\"");
        assertThat(vera.get("/tokens").status()).isEqualTo(403);
        assertThat(vera.get("/audit").status()).isEqualTo(403);
        assertThat(vera.get("/teams").body()).contains("data").doesNotContain("id=\"create-team\"");

        WebClient bob = web();
        bob.login(BOB);
        assertThat(bob.get("/tasks").body()).contains("id=\"nav-audit\"");
        assertThat(bob.get("/audit?team=data").status()).isEqualTo(200);
        assertThat(bob.get("/audit?team=finance").status()).isEqualTo(403);
    }

    @Test
    void an_admin_makes_a_token_shown_once_and_its_owner_revokes_it_ending_their_session() {
        WebClient admin = web();
        String csrf = admin.login(ConsoleServer.ADMIN);
        WebClient.Page made = admin.post(
                "/tokens",
                form(
                        "csrf",
                        csrf,
                        "name",
                        "carol",
                        "role",
                        "viewer",
                        "teams",
                        "data=operator",
                        "groups",
                        "",
                        "owner",
                        "",
                        "expiresIn",
                        "P30D"));
        assertThat(made.status()).as(made.body()).isEqualTo(200);
        Matcher m = Pattern.compile("id=\"new-token\" value=\"(axt_[^\"]+)\"").matcher(made.body());
        assertThat(m.find()).as(made.body()).isTrue();
        String token = m.group(1);
        assertThat(made.body()).contains("carol for carol: viewer; operator in data");
        assertThat(admin.get("/tokens").body()).contains("token-carol").doesNotContain(token);

        WebClient carol = web();
        String carolCsrf = carol.login(token);
        assertThat(carol.get("/my-tokens").body()).contains("token-carol").contains("(you are logged in with it)");
        WebClient.Page revoked = carol.post("/tokens/carol/revoke", form("csrf", carolCsrf, "back", "/my-tokens"));
        assertThat(revoked.status()).isEqualTo(303);
        WebClient.Page after = carol.get("/my-tokens");
        assertThat(after.status()).isEqualTo(303);
        assertThat(after.location()).startsWith("/login");
        assertThat(audit("carol")).extracting(r -> r.entry().action()).contains("token.revoke", "login");
        assertThat(audit("admin")).anySatisfy(r -> {
            assertThat(r.entry().action()).isEqualTo("token.create");
            assertThat(r.entry().message()).doesNotContain(token);
        });
    }

    @Test
    void a_person_cannot_revoke_someone_elses_token() {
        WebClient alice = web();
        String csrf = alice.login(ALICE);
        alice.post("/tokens/bob/revoke", form("csrf", csrf, "back", "/my-tokens"));
        assertThat(alice.get("/my-tokens").body()).contains("alice may revoke only their own tokens; bob is bob's");
        assertThat(server.node.tokens().get("bob").name()).isEqualTo("bob");
    }

    @Test
    void the_audit_page_filters_by_actor_and_team() {
        WebClient admin = web();
        admin.login(ConsoleServer.ADMIN);
        WebClient olga = web();
        String csrf = olga.login(ConsoleServer.OPERATOR);
        olga.post("/tasks/ledger/trigger", form("csrf", csrf, "back", "/tasks/ledger"));

        String page = admin.get("/audit?actor=olga&team=finance").body();
        assertThat(page)
                .contains("task.trigger")
                .contains("href=\"/tasks/ledger\"")
                .doesNotContain("task:sync_orders");
        assertThat(admin.get("/audit?actor=nobody-at-all").body()).contains("No entries.");
        assertThat(admin.get("/audit?from=yesterday").status()).isEqualTo(400);
    }

    @Test
    void a_team_page_lists_its_tasks_and_members_and_cannot_be_deleted_while_used() {
        WebClient admin = web();
        String csrf = admin.login(ConsoleServer.ADMIN);
        String page = admin.get("/teams/data").body();
        assertThat(page).contains("sync_orders").contains("<td>alice</td>").contains("<td>operator</td>");
        admin.post("/teams/data/delete", form("csrf", csrf, "back", "/teams/data"));
        assertThat(admin.get("/teams/data").body()).contains("flash-error").contains("team data is still used by task");
    }
}
