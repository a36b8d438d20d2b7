package dev.ax.console;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.store.TestDatabases;
import java.net.CookieManager;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Every answer outside the API carries the console's CSP and nosniff, whatever produced it; the API's JSON says nosniff. */
class SecurityHeadersTest {
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
                                Map.of("type", "shell", "command", "echo hello")),
                        "test");
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    record Seen(String what, HttpResponse<String> response) {}

    HttpResponse<String> send(HttpClient http, HttpRequest.Builder request) throws Exception {
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    HttpRequest.Builder get(String path) {
        return HttpRequest.newBuilder(server.url().resolve(path)).GET();
    }

    HttpRequest.Builder form(String path, String body) {
        return HttpRequest.newBuilder(server.url().resolve(path))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(body));
    }

    @Test
    void every_kind_of_console_answer_carries_the_csp_and_nosniff() throws Exception {
        HttpClient anonymous = HttpClient.newHttpClient();
        HttpClient session =
                HttpClient.newBuilder().cookieHandler(new CookieManager()).build();
        List<Seen> seen = new ArrayList<>();
        seen.add(new Seen("login page", send(anonymous, get("/login"))));
        seen.add(new Seen("failed login", send(anonymous, form("/login", "token=nope"))));
        seen.add(new Seen("redirect to login", send(anonymous, get("/tasks"))));
        seen.add(new Seen(
                "successful login (redirect)", send(session, form("/login", "token=" + ConsoleServer.ADMIN))));
        seen.add(new Seen("page", send(session, get("/tasks"))));
        seen.add(new Seen("error page", send(session, get("/tasks/no-such-task"))));
        seen.add(new Seen("refused action", send(session, form("/tasks/hello/pause", "csrf=forged"))));
        seen.add(new Seen("stylesheet", send(anonymous, get(Assets.CSS))));
        seen.add(new Seen("webjar", send(anonymous, get(Assets.HTMX))));
        seen.add(new Seen("no such path", send(anonymous, get("/no/such/page"))));
        seen.add(new Seen(
                "body too large",
                send(
                        anonymous,
                        HttpRequest.newBuilder(server.url().resolve("/login"))
                                .header("Content-Type", "application/x-www-form-urlencoded")
                                .POST(HttpRequest.BodyPublishers.ofByteArray(new byte[2 * 1024 * 1024])))));
        seen.add(new Seen("log stream without a session", send(anonymous, get("/runs/1/stream"))));

        assertThat(seen)
                .extracting(s -> s.what() + " " + s.response().statusCode())
                .containsExactly(
                        "login page 200",
                        "failed login 401",
                        "redirect to login 303",
                        "successful login (redirect) 303",
                        "page 200",
                        "error page 404",
                        "refused action 403",
                        "stylesheet 200",
                        "webjar 200",
                        "no such path 404",
                        "body too large 413",
                        "log stream without a session 401");
        for (Seen s : seen) {
            var headers = s.response().headers();
            assertThat(headers.firstValue("Content-Security-Policy"))
                    .as(s.what())
                    .hasValueSatisfying(csp ->
                            assertThat(csp).contains("frame-ancestors 'none'").contains("default-src 'self'"));
            assertThat(headers.firstValue("X-Content-Type-Options"))
                    .as(s.what())
                    .hasValue("nosniff");
            assertThat(headers.firstValue("Referrer-Policy")).as(s.what()).hasValue("same-origin");
        }
    }

    @Test
    void api_answers_say_nosniff_and_leave_the_console_policy_to_pages() throws Exception {
        HttpResponse<String> ok = send(
                HttpClient.newHttpClient(), get("/api/tasks").header("Authorization", "Bearer " + ConsoleServer.ADMIN));
        HttpResponse<String> refused = send(HttpClient.newHttpClient(), get("/api/tasks"));

        for (HttpResponse<String> r : List.of(ok, refused)) {
            assertThat(r.headers().firstValue("X-Content-Type-Options")).hasValue("nosniff");
            assertThat(r.headers().firstValue("Content-Type"))
                    .hasValueSatisfying(t -> assertThat(t).startsWith("application/json"));
        }
        assertThat(refused.statusCode()).isEqualTo(401);
    }

    @Test
    void pages_are_not_cached_and_assets_keep_their_own_caching() throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        assertThat(send(http, get("/login")).headers().firstValue("Cache-Control"))
                .hasValue("no-store");
        assertThat(send(http, get(Assets.HTMX)).headers().firstValue("Cache-Control"))
                .hasValue("public, max-age=31536000, immutable");
    }
}
