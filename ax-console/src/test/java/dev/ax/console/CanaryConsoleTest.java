package dev.ax.console;

import static dev.ax.console.WebClient.form;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.domain.run.Cause;
import dev.ax.scheduler.Canaries;
import dev.ax.store.TestDatabases;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The canary on the task page with its buttons, and the editor's test run. */
class CanaryConsoleTest {
    static ConsoleServer server;

    @BeforeAll
    static void start() {
        server = new ConsoleServer(TestDatabases.h2());
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    static Map<String, Object> task(String name, String command) {
        return Map.of(
                "taskName",
                name,
                "trigger",
                Map.of("type", "event"),
                "action",
                Map.of("type", "shell", "command", command),
                "policy",
                Map.of("overflow", "ALLOW"));
    }

    @Test
    void the_task_page_shows_the_canary_and_an_admin_promotes_it_while_a_viewer_gets_no_button() {
        server.node.tasks().create(task("promoted", "echo v1"), "test");
        server.node
                .canaries()
                .start("promoted", task("promoted", "echo v2"), Canaries.Rollout.of(null, 2, null, null), "alice");
        server.node.tasks().trigger("promoted", Map.of(), Cause.MANUAL, "alice");

        WebClient viewer = new WebClient(server.url());
        viewer.login(ConsoleServer.VIEWER);
        String seen = viewer.get("/tasks/promoted").body();
        assertThat(seen)
                .contains("Canary in progress: v2", "the next 2 new runs", "(1 so far)")
                .doesNotContain("id=\"promote\"")
                .doesNotContain("id=\"rollback\"");

        WebClient admin = new WebClient(server.url());
        String csrf = admin.login(ConsoleServer.ADMIN);
        assertThat(admin.get("/tasks/promoted").body()).contains("id=\"promote\"", "id=\"rollback\"");
        WebClient.Page p = admin.post("/tasks/promoted/canary/promote", form("csrf", csrf));
        assertThat(p.location()).isEqualTo("/tasks/promoted");
        String after = admin.get("/tasks/promoted").body();
        assertThat(after)
                .contains("promoted the canary of promoted: now v3")
                .doesNotContain("Canary in progress")
                .contains("PROMOTE");
    }

    @Test
    void an_operator_rolls_the_canary_back() {
        server.node.tasks().create(task("rolled", "echo v1"), "test");
        server.node
                .canaries()
                .start("rolled", task("rolled", "echo v2"), Canaries.Rollout.of(10, null, null, null), "alice");
        WebClient operator = new WebClient(server.url());
        String csrf = operator.login(ConsoleServer.OPERATOR);
        assertThat(operator.get("/tasks/rolled").body())
                .contains("10 % of new runs")
                .contains("id=\"rollback\"")
                .doesNotContain("id=\"promote\"");
        operator.post("/tasks/rolled/canary/promote", form("csrf", csrf, "back", "/tasks/rolled"));
        assertThat(operator.get("/tasks/rolled").body())
                .contains("flash-error")
                .contains("olga (operator) may not promote a canary: that needs admin everywhere")
                .contains("Canary in progress");
        operator.post("/tasks/rolled/canary/rollback", form("csrf", csrf));
        assertThat(operator.get("/tasks/rolled").body())
                .contains("new runs use v1")
                .doesNotContain("Canary in progress");
    }

    @Test
    void the_editor_test_runs_the_text_without_saving_it() {
        server.node.tasks().create(task("drafted", "echo saved"), "test");
        WebClient admin = new WebClient(server.url());
        String csrf = admin.login(ConsoleServer.ADMIN);
        assertThat(admin.get("/tasks/drafted/edit").body()).contains("id=\"test-run\"");
        String draft =
                "{\"taskName\":\"drafted\",\"trigger\":{\"type\":\"event\"},\"action\":{\"type\":\"shell\",\"command\":\"echo draft\"}}";
        WebClient.Page p = admin.post("/tasks/drafted/test-run", form("csrf", csrf, "definition", draft));
        assertThat(p.status()).isEqualTo(303);
        assertThat(p.location()).startsWith("/runs/");
        long id = Long.parseLong(p.location().substring("/runs/".length()));
        assertThat(server.store
                        .tx(tx -> server.store.runs().find(tx, id))
                        .orElseThrow()
                        .cause())
                .isEqualTo(Cause.TEST);
        assertThat(server.store
                        .tx(tx -> server.store.tasks().find(tx, "drafted"))
                        .orElseThrow()
                        .version())
                .isEqualTo(1);

        WebClient.Page bad = admin.post(
                "/tasks/drafted/test-run", form("csrf", csrf, "definition", draft.replace("echo draft", "")));
        assertThat(bad.status()).isEqualTo(400);
        assertThat(bad.body()).contains("action.command").contains("Nothing was written");
    }
}
