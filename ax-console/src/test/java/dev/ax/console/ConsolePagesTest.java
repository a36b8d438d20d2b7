package dev.ax.console;

import static dev.ax.console.WebClient.form;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ax.domain.access.Role;
import dev.ax.domain.run.Cause;
import dev.ax.domain.run.RunState;
import dev.ax.store.RunRow;
import dev.ax.store.RunStore;
import dev.ax.store.TaskRow;
import dev.ax.store.TestDatabases;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The console over plain HTTP: login, CSRF, role refusals, error pages, the log stream. */
class ConsolePagesTest {
    static ConsoleServer server;

    @BeforeAll
    static void start() {
        server = new ConsoleServer(TestDatabases.h2());
        server.node
                .tasks()
                .create(
                        Map.of(
                                "taskName",
                                "hello",
                                "trigger",
                                Map.of("type", "event"),
                                "action",
                                Map.of("type", "shell", "command", "echo hello {{params.who}}")),
                        "test");
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    WebClient web() {
        return new WebClient(server.url());
    }

    static int runs() {
        List<RunRow> rows =
                server.store.tx(tx -> server.store.runs().list(tx, RunStore.RunFilter.ALL, Long.MAX_VALUE, 1000));
        return rows.size();
    }

    RunState state(long id) {
        return server.store
                .tx(tx -> server.store.runs().find(tx, id))
                .orElseThrow()
                .state();
    }

    @Test
    void a_visitor_without_a_session_is_sent_to_the_login_page_and_back() {
        WebClient web = web();
        WebClient.Page p = web.get("/tasks/hello?x=1");
        assertThat(p.status()).isEqualTo(303);
        assertThat(p.location()).isEqualTo("/login?next=%2Ftasks%2Fhello%3Fx%3D1");

        WebClient.Page login = web.post("/login", form("token", ConsoleServer.VIEWER, "next", "/tasks/hello?x=1"));
        assertThat(login.status()).isEqualTo(303);
        assertThat(login.location()).isEqualTo("/tasks/hello?x=1");
        assertThat(web.get("/tasks/hello").body()).contains("vera (viewer)");
    }

    @Test
    void the_session_cookie_is_http_only_and_same_site_strict() throws Exception {
        HttpResponse<String> r = HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(server.url().resolve("/login"))
                                .header("Content-Type", "application/x-www-form-urlencoded")
                                .POST(HttpRequest.BodyPublishers.ofString("token=" + ConsoleServer.ADMIN))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
        assertThat(r.headers().allValues("Set-Cookie"))
                .anySatisfy(c -> assertThat(c)
                        .startsWith(Session.COOKIE + "=")
                        .contains("HttpOnly")
                        .contains("SameSite=Strict"));
    }

    @Test
    void unknown_and_executor_tokens_cannot_log_in_and_a_foreign_next_is_ignored() {
        WebClient web = web();
        assertThat(web.post("/login", form("token", "nope")).status()).isEqualTo(401);
        assertThat(web.post("/login", form("token", ConsoleServer.EXECUTOR)).status())
                .isEqualTo(401);
        WebClient.Page p = web.post("/login", form("token", ConsoleServer.ADMIN, "next", "//evil.example/x"));
        assertThat(p.location()).isEqualTo("/");
    }

    @Test
    void a_post_without_the_session_csrf_field_is_refused_and_changes_nothing() {
        WebClient web = web();
        web.login(ConsoleServer.ADMIN);
        WebClient.Page p = web.post("/tasks/hello/pause", form("csrf", "forged"));
        assertThat(p.status()).isEqualTo(403);
        assertThat(server.store
                        .tx(tx -> server.store.tasks().find(tx, "hello"))
                        .orElseThrow()
                        .paused())
                .isFalse();
    }

    @Test
    void the_server_refuses_what_a_viewer_was_not_offered() {
        WebClient web = web();
        String csrf = web.login(ConsoleServer.VIEWER);
        int runsBefore = runs();
        assertThat(web.get("/tasks/hello").body())
                .doesNotContain("id=\"trigger\"")
                .doesNotContain("id=\"pause\"")
                .doesNotContain("id=\"edit\"")
                .doesNotContain("id=\"delete\"");

        WebClient.Page p = web.post("/tasks/hello/trigger", form("csrf", csrf, "back", "/tasks/hello"));
        assertThat(p.status()).isEqualTo(303);
        assertThat(p.location()).isEqualTo("/tasks/hello");
        assertThat(web.get("/tasks/hello").body())
                .contains("flash-error")
                .contains("vera (viewer) may not trigger a task: that needs operator everywhere");
        assertThat(web.get("/new-task").status()).isEqualTo(403);
        assertThat(runs()).isEqualTo(runsBefore);
    }

    @Test
    void an_operator_triggers_with_params_and_is_sent_to_the_run() {
        WebClient web = web();
        String csrf = web.login(ConsoleServer.OPERATOR);
        WebClient.Page p =
                web.post("/tasks/hello/trigger", form("csrf", csrf, "params", "who=world\n\n", "back", "/tasks/hello"));
        assertThat(p.status()).isEqualTo(303);
        assertThat(p.location()).startsWith("/runs/");
        long id = Long.parseLong(p.location().substring("/runs/".length()));
        await().atMost(Duration.ofSeconds(20)).until(() -> state(id) == RunState.SUCCESS);
        WebClient.Page run = web.get(p.location());
        assertThat(run.body())
                .contains("hello world")
                .contains("SUCCESS")
                .contains("who=world")
                .contains("olga");
    }

    @Test
    void the_trigger_form_is_built_from_the_declared_parameters_and_refuses_what_they_do_not_allow() {
        server.node
                .tasks()
                .create(
                        Map.of(
                                "taskName",
                                "report",
                                "trigger",
                                Map.of("type", "event"),
                                "action",
                                Map.of(
                                        "type",
                                        "shell",
                                        "command",
                                        "echo {{params.date}} {{params.region}} {{params.limit}}"),
                                "params",
                                Map.of(
                                        "date",
                                        Map.of("type", "date", "required", true, "description", "the business date"),
                                        "region",
                                        Map.of("enum", List.of("cn", "us")),
                                        "limit",
                                        Map.of("type", "integer", "min", 1, "max", 1000, "default", 100))),
                        "test");
        WebClient web = web();
        String csrf = web.login(ConsoleServer.OPERATOR);
        String page = web.get("/tasks/report").body();
        assertThat(page)
                .contains("<input type=\"date\" id=\"param.date\" name=\"param.date\" value=\"\" required")
                .contains("<select id=\"param.region\" name=\"param.region\">")
                .contains("<option value=\"us\">us</option>")
                .contains("name=\"param.limit\" value=\"100\"")
                .contains("min=\"1\" max=\"1000\" step=\"1\"")
                .contains("the business date")
                .doesNotContain("key=value per line");

        int before = runs();
        WebClient.Page refused = web.post(
                "/tasks/report/trigger",
                form("csrf", csrf, "param.date", "2026-11-30", "param.region", "eu", "back", "/tasks/report"));
        assertThat(refused.status()).isEqualTo(303);
        assertThat(web.get(refused.location()).body()).contains("params.region: must be one of cn, us");
        assertThat(runs()).isEqualTo(before);

        WebClient.Page ok = web.post(
                "/tasks/report/trigger",
                form(
                        "csrf",
                        csrf,
                        "param.date",
                        "2026-11-30",
                        "param.region",
                        "us",
                        "param.limit",
                        "",
                        "back",
                        "/tasks/report"));
        long id = Long.parseLong(ok.location().substring("/runs/".length()));
        Map<String, Object> params = server.store
                .tx(tx -> server.store.runs().find(tx, id))
                .orElseThrow()
                .params();
        assertThat(params)
                .containsOnlyKeys("date", "region", "limit")
                .containsEntry("date", "2026-11-30")
                .containsEntry("region", "us");
        assertThat(((Number) params.get("limit")).longValue()).isEqualTo(100);
    }

    @Test
    void an_operator_pauses_and_resumes_and_an_admin_deletes_after_confirming() {
        server.node
                .tasks()
                .create(
                        Map.of(
                                "taskName",
                                "nightly",
                                "trigger",
                                Map.of("type", "cron", "expression", "0 3 * * *"),
                                "action",
                                Map.of("type", "shell", "command", "true")),
                        "test");
        WebClient operator = web();
        String csrf = operator.login(ConsoleServer.OPERATOR);
        assertThat(operator.post("/tasks/nightly/pause", form("csrf", csrf)).location())
                .isEqualTo("/tasks/nightly");
        assertThat(operator.get("/tasks/nightly").body())
                .contains("id=\"task-status\">paused")
                .contains("id=\"resume\"")
                .doesNotContain("id=\"delete\"");
        operator.post("/tasks/nightly/resume", form("csrf", csrf));
        assertThat(operator.get("/tasks/nightly").body()).contains("id=\"task-status\">active");

        WebClient admin = web();
        String adminCsrf = admin.login(ConsoleServer.ADMIN);
        assertThat(admin.get("/tasks/nightly/delete").body())
                .contains("Delete nightly?")
                .contains("id=\"confirm-delete\"");
        WebClient.Page deleted = admin.post("/tasks/nightly/delete", form("csrf", adminCsrf));
        assertThat(deleted.location()).isEqualTo("/tasks");
        assertThat(admin.get("/tasks/nightly").status()).isEqualTo(404);
        assertThat(admin.get("/audit").body())
                .contains("task.delete")
                .contains("task.resume")
                .contains("task.pause")
                .contains("olga");
    }

    @Test
    void run_actions_call_the_run_service_and_are_refused_in_the_wrong_state() {
        server.node
                .tasks()
                .create(
                        Map.of(
                                "taskName",
                                "sleeper",
                                "trigger",
                                Map.of("type", "event"),
                                "action",
                                Map.of("type", "shell", "command", "sleep 60")),
                        "test");
        long running = server.node.tasks().trigger("sleeper", Map.of(), Cause.MANUAL, "test");
        await().atMost(Duration.ofSeconds(20)).until(() -> state(running) == RunState.RUNNING);
        WebClient web = web();
        String csrf = web.login(ConsoleServer.OPERATOR);
        assertThat(web.get("/runs/" + running).body())
                .contains("id=\"terminate\"")
                .doesNotContain("id=\"retry\"");

        WebClient.Page refused =
                web.post("/runs/" + running + "/retry", form("csrf", csrf, "back", "/runs/" + running));
        assertThat(refused.location()).isEqualTo("/runs/" + running);
        assertThat(web.get("/runs/" + running).body()).contains("flash-error").contains("retry takes a FAILED");

        web.post("/runs/" + running + "/terminate", form("csrf", csrf, "reason", "wrong day"));
        assertThat(state(running)).isEqualTo(RunState.TERMINATED);
        WebClient.Page retried = web.post("/runs/" + running + "/retry", form("csrf", csrf));
        long retry = Long.parseLong(retried.location().substring("/runs/".length()));
        assertThat(retry).isNotEqualTo(running);
        await().atMost(Duration.ofSeconds(20)).until(() -> state(retry) == RunState.RUNNING);
        assertThat(web.get("/runs/" + retry).body())
                .contains("#" + running + " manual")
                .contains("#" + retry + " retry");
        web.post("/runs/" + retry + "/terminate", form("csrf", csrf));
        assertThat(web.get("/runs/" + running).body()).contains("terminated by olga: wrong day");
    }

    @Test
    void a_run_waiting_for_its_dependencies_shows_what_it_waits_for_and_can_be_canceled() {
        server.node
                .tasks()
                .create(
                        Map.of(
                                "taskName",
                                "upstream_sync",
                                "trigger",
                                Map.of("type", "event"),
                                "action",
                                Map.of("type", "shell", "command", "exit 3")),
                        "test");
        server.node
                .tasks()
                .create(
                        Map.of(
                                "taskName",
                                "downstream_report",
                                "trigger",
                                Map.of("type", "event"),
                                "action",
                                Map.of("type", "shell", "command", "true"),
                                "dependsOn",
                                List.of(Map.of("task", "upstream_sync", "scope", "sameDate"))),
                        "test");
        long report = server.node.tasks().trigger("downstream_report", Map.of(), Cause.MANUAL, "test");
        long sync = server.node.tasks().trigger("upstream_sync", Map.of(), Cause.MANUAL, "test");
        await().atMost(Duration.ofSeconds(20)).until(() -> state(sync) == RunState.FAILED);
        WebClient web = web();
        String csrf = web.login(ConsoleServer.OPERATOR);
        String page = web.get("/runs/" + report).body();
        assertThat(page)
                .contains("WAITING_DEPENDENCY")
                .contains("id=\"waiting-for\"")
                .contains("Waiting for")
                .contains("href=\"/tasks/upstream_sync\"")
                .contains("href=\"/runs/" + sync + "\"")
                .contains("FAILED")
                .contains("id=\"cancel\"");
        web.post("/runs/" + report + "/cancel", form("csrf", csrf));
        assertThat(state(report)).isEqualTo(RunState.CANCELED);
        assertThat(web.get("/runs/" + report).body()).doesNotContain("id=\"waiting-for\"");
    }

    @Test
    void the_health_page_says_how_much_history_there_is_and_how_long_it_is_kept() {
        WebClient web = web();
        web.login(ConsoleServer.VIEWER);
        String page = web.get("/health").body();

        assertThat(page)
                .contains("id=\"history\"")
                .contains("P90D after they end")
                .contains("P30D after its run ended")
                .contains("0 runs, 0 output chunks since it started");
    }

    @Test
    void missing_things_get_html_error_pages_not_the_api_json() {
        WebClient web = web();
        web.login(ConsoleServer.VIEWER);
        WebClient.Page missing = web.get("/tasks/no_such_task");
        assertThat(missing.status()).isEqualTo(404);
        assertThat(missing.contentType()).startsWith("text/html");
        assertThat(missing.body()).contains("no task named no_such_task");
        assertThat(web.get("/runs/abc").status()).isEqualTo(400);
        assertThat(web.get("/runs/99999").status()).isEqualTo(404);
        assertThat(web.get("/runs?state=SLEEPING").status()).isEqualTo(400);
        WebClient.Page badPeriod = web.get("/runs?since=3w");
        assertThat(badPeriod.status()).isEqualTo(400);
        assertThat(badPeriod.body()).contains("since: one of 1h, 6h, 24h, 7d, 30d");
        WebClient.Page lastHour = web.get("/runs?since=1h");
        assertThat(lastHour.status()).isEqualTo(200);
        assertThat(lastHour.serverTiming()).matches("app;dur=\\d+\\.\\d");
    }

    @Test
    void a_bad_definition_is_answered_with_every_field_error_and_nothing_is_written() {
        WebClient web = web();
        String csrf = web.login(ConsoleServer.ADMIN);
        WebClient.Page p = web.post("/new-task", form("csrf", csrf, "definition", """
                {"taskName":"bad","trigger":{"type":"cron","expression":"61 * * * *"},
                 "action":{"type":"shell","command":"true"},"policy":{"maxRetries":-1}}"""));
        assertThat(p.status()).isEqualTo(400);
        assertThat(p.body())
                .contains("trigger.expression")
                .contains("policy.maxRetries")
                .contains("Not saved: 2 problems");
        assertThat(web.post("/new-task", form("csrf", csrf, "definition", "{\"taskName\": "))
                        .body())
                .contains("malformed JSON");
        Optional<TaskRow> bad = server.store.tx(tx -> server.store.tasks().find(tx, "bad"));
        assertThat(bad).isEmpty();
    }

    @Test
    void the_log_stream_needs_a_session() throws Exception {
        HttpResponse<String> r = HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(server.url().resolve("/runs/1/stream"))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(401);
    }

    @Test
    void the_log_stream_sends_new_output_then_the_state_change() throws Exception {
        server.node
                .tasks()
                .create(
                        Map.of(
                                "taskName",
                                "ticker",
                                "trigger",
                                Map.of("type", "event"),
                                "action",
                                Map.of("type", "shell", "command", "echo one; sleep 1; echo two")),
                        "test");
        long id = server.node.tasks().trigger("ticker", Map.of(), Cause.MANUAL, "test");
        // Connected while the run is still READY, the stream would end at once on READY → RUNNING (the page reloads
        // then).
        await().atMost(Duration.ofSeconds(20)).until(() -> state(id) == RunState.RUNNING);
        WebClient web = web();
        web.login(ConsoleServer.VIEWER);
        // The stream carries the session cookie like a browser's EventSource does.
        HttpRequest req = HttpRequest.newBuilder(server.url().resolve("/runs/" + id + "/stream?after=0"))
                .header("Cookie", Session.COOKIE + "=" + ConsoleServer.VIEWER)
                .build();
        HttpResponse<InputStream> r = HttpClient.newHttpClient().send(req, HttpResponse.BodyHandlers.ofInputStream());
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("Content-Type").orElse("")).startsWith("text/event-stream");
        List<String> lines = new ArrayList<>();
        try (BufferedReader in = new BufferedReader(new InputStreamReader(r.body(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                lines.add(line);
                if (line.startsWith("event: state")) {
                    lines.add(in.readLine());
                    lines.add(in.readLine());
                    break;
                }
            }
        }
        String all = String.join("\n", lines);
        assertThat(all).contains("event: log").contains("one").contains("two").contains("event: state");
        assertThat(all.indexOf("two")).isLessThan(all.indexOf("event: state"));
    }

    @Test
    void every_console_action_takes_its_role_from_the_api_route_table() {
        assertThat(Permissions.required(Permissions.Action.CREATE_TASK)).isEqualTo(Role.ADMIN);
        assertThat(Permissions.required(Permissions.Action.TRIGGER_TASK)).isEqualTo(Role.OPERATOR);
        assertThat(Permissions.required(Permissions.Action.TERMINATE_RUN)).isEqualTo(Role.OPERATOR);
        // Approving needs only a known token: whether this person may decide is the approval's own rule.
        assertThat(Permissions.required(Permissions.Action.APPROVE_RUN)).isEqualTo(Role.VIEWER);
    }

    @Test
    void the_scripts_the_pages_load_are_served_from_the_classpath() throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        for (String path : List.of(Assets.HTMX, Assets.HTMX_SSE, Assets.CSS, Assets.JS)) {
            byte[] onClasspath;
            try (InputStream in = Console.class.getResourceAsStream(Assets.resource(path))) {
                assertThat(in).as(path).isNotNull();
                onClasspath = in.readAllBytes();
            }
            // No login needed: the login page loads them too.
            HttpResponse<byte[]> r = http.send(
                    HttpRequest.newBuilder(server.url().resolve(path)).build(),
                    HttpResponse.BodyHandlers.ofByteArray());
            assertThat(r.statusCode()).as(path).isEqualTo(200);
            assertThat(r.body()).as(path).isEqualTo(onClasspath);
            assertThat(r.headers().firstValue("Content-Type"))
                    .as(path)
                    .hasValue(path.endsWith(".css") ? "text/css; charset=utf-8" : "text/javascript; charset=utf-8");
            assertThat(r.headers().firstValue("Cache-Control"))
                    .as(path)
                    .hasValue(path.startsWith("/webjars/") ? "public, max-age=31536000, immutable" : "no-cache");
            String etag = r.headers().firstValue("ETag").orElseThrow();
            HttpResponse<byte[]> again = http.send(
                    HttpRequest.newBuilder(server.url().resolve(path))
                            .header("If-None-Match", etag)
                            .build(),
                    HttpResponse.BodyHandlers.ofByteArray());
            assertThat(again.statusCode()).as(path).isEqualTo(304);
            assertThat(again.body()).as(path).isEmpty();
        }
    }

    @Test
    void nothing_else_on_the_classpath_is_served_beside_the_assets() throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        for (String path : List.of(
                "/webjars/htmx.org/2.0.10/package.json",
                "/webjars/htmx.org/2.0.10/dist/htmx.js",
                "/assets/logback.xml",
                "/assets/../templates/page.jte",
                "/META-INF/MANIFEST.MF",
                "/dev/ax/console/Console.class")) {
            HttpResponse<String> r = http.send(
                    HttpRequest.newBuilder(server.url().resolve(path)).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).as(path).isEqualTo(404);
            assertThat(r.body()).as(path).startsWith("{\"error\"");
        }
    }

    @Test
    void the_api_still_answers_json_beside_the_console() throws Exception {
        HttpResponse<String> r = HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(server.url().resolve("/api/nope"))
                                .header("Authorization", "Bearer " + ConsoleServer.ADMIN)
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(404);
        assertThat(r.body()).startsWith("{\"error\"");
        HttpResponse<String> h = HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(server.url().resolve("/healthz")).build(),
                        HttpResponse.BodyHandlers.ofString());
        assertThat(h.body())
                .as("healthz answered %s %s", h.statusCode(), h.headers().map())
                .contains("\"status\":\"ok\"");
    }
}
