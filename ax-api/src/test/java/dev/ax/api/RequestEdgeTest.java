package dev.ax.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ax.domain.run.Cause;
import dev.ax.store.TestDatabases;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** What every request passes first: the body size limit, JSON nesting, charsets, and the nosniff header. */
class RequestEdgeTest {
    static final int TWO_MIB = 2 * 1024 * 1024;
    static TestNode node;
    static long instance;
    final HttpClient http =
            HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @BeforeAll
    static void start() {
        node = new TestNode(TestDatabases.h2());
        node.node
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
        instance = node.node.tasks().trigger("hello", Map.of(), Cause.EVENT, "test");
    }

    @AfterAll
    static void stop() {
        node.close();
    }

    URI url(String path) {
        return URI.create("http://127.0.0.1:" + node.api.port() + path);
    }

    HttpResponse<String> send(String method, String path, HttpRequest.BodyPublisher body, String contentType)
            throws Exception {
        return http.send(
                HttpRequest.newBuilder(url(path))
                        .timeout(Duration.ofSeconds(30))
                        .header("Authorization", "Bearer " + TestNode.ADMIN)
                        .header("Content-Type", contentType)
                        .method(method, body)
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** A task definition whose command makes it {@code bytes} long: valid JSON, a task the server would create. */
    static byte[] taskOf(String name, int bytes) {
        String head = "{\"taskName\":\"" + name
                + "\",\"trigger\":{\"type\":\"event\"},\"action\":{\"type\":\"shell\",\"command\":\"echo ";
        String tail = "\"}}";
        return (head + "x".repeat(bytes - head.length() - tail.length()) + tail).getBytes(StandardCharsets.UTF_8);
    }

    static JsonNode json(HttpResponse<String> r) throws IOException {
        return Json.mapper().readTree(r.body());
    }

    boolean exists(String task) {
        return node.client(TestNode.ADMIN).get("/api/tasks/" + task).status() == 200;
    }

    @Test
    void a_body_over_the_limit_with_a_content_length_gets_413_in_ax_json_and_writes_nothing() throws Exception {
        HttpResponse<String> r = send(
                "POST",
                "/api/tasks",
                HttpRequest.BodyPublishers.ofByteArray(taskOf("huge", TWO_MIB)),
                "application/json");

        assertThat(r.statusCode()).as(r.body()).isEqualTo(413);
        assertThat(r.headers().firstValue("Content-Type"))
                .hasValueSatisfying(t -> assertThat(t).startsWith("application/json"));
        JsonNode error = json(r).get("error");
        assertThat(error.get("status").asInt()).isEqualTo(413);
        assertThat(error.get("message").asText())
                .isEqualTo(
                        "request body larger than the server's limit of 1048576 bytes (1 MiB, set by --max-request-size)");
        assertThat(exists("huge")).isFalse();
    }

    @Test
    void a_client_that_expects_100_continue_gets_the_413_instead_of_a_go_ahead() throws Exception {
        HttpResponse<String> r = http.send(
                HttpRequest.newBuilder(url("/api/tasks"))
                        .expectContinue(true)
                        .header("Authorization", "Bearer " + TestNode.ADMIN)
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofByteArray(taskOf("huge_expecting", TWO_MIB)))
                        .build(),
                HttpResponse.BodyHandlers.ofString());

        assertThat(r.statusCode()).isEqualTo(413);
        assertThat(exists("huge_expecting")).isFalse();
    }

    @Test
    void a_chunked_body_over_the_limit_gets_the_same_413_and_writes_nothing() throws Exception {
        byte[] body = taskOf("huge_chunked", TWO_MIB);
        // An input stream has no known length: the client sends Transfer-Encoding: chunked and no Content-Length.
        HttpResponse<String> r = send(
                "POST",
                "/api/tasks",
                HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(body)),
                "application/json");

        assertThat(r.statusCode()).as(r.body()).isEqualTo(413);
        assertThat(json(r).get("error").get("message").asText()).contains("limit of 1048576 bytes (1 MiB");
        assertThat(exists("huge_chunked")).isFalse();
    }

    @Test
    void a_body_under_the_limit_is_read_and_judged_on_its_content_with_or_without_a_content_length() throws Exception {
        byte[] body = taskOf("big", 900 * 1024);

        HttpResponse<String> sized =
                send("POST", "/api/tasks", HttpRequest.BodyPublishers.ofByteArray(body), "application/json");
        HttpResponse<String> chunked = send(
                "POST",
                "/api/tasks",
                HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(body)),
                "application/json");

        for (HttpResponse<String> r : List.of(sized, chunked)) {
            // Past the size check, the domain has its own word on a 900 KiB command.
            assertThat(r.statusCode()).as(r.body()).isEqualTo(400);
            assertThat(json(r).get("error").get("fields").get(0).get("field").asText())
                    .isEqualTo("action.command");
        }
    }

    @Test
    void the_limit_applies_before_any_route_is_looked_up_even_on_unknown_paths() throws Exception {
        for (String path : List.of("/no/such/path", "/api/tasks/hello/nothing")) {
            HttpResponse<String> r = send(
                    "POST",
                    path,
                    HttpRequest.BodyPublishers.ofByteArray(new byte[TWO_MIB]),
                    "application/x-www-form-urlencoded");
            assertThat(r.statusCode()).as(path).isEqualTo(413);
            assertThat(json(r).get("error").get("status").asInt()).isEqualTo(413);
        }
    }

    @Test
    void json_nested_deeper_than_the_limit_is_a_400_on_the_whole_body() throws Exception {
        String deep =
                "{\"taskName\":\"deep\",\"trigger\":{\"type\":\"event\"},\"action\":{\"type\":\"shell\",\"command\":\"x\"},"
                        + "\"params\":" + "[".repeat(10_000) + "]".repeat(10_000) + "}";
        for (String path : List.of("/api/tasks", "/api/executor/poll")) {
            HttpResponse<String> r = send("POST", path, HttpRequest.BodyPublishers.ofString(deep), "application/json");

            assertThat(r.statusCode()).as(path + " " + r.body()).isEqualTo(400);
            JsonNode field = json(r).get("error").get("fields").get(0);
            assertThat(field.get("field").asText()).isEmpty();
            assertThat(field.get("reason").asText())
                    .isEqualTo("JSON nested deeper than 64 levels of arrays and objects");
        }
        assertThat(exists("deep")).isFalse();
    }

    @Test
    void json_nested_within_the_limit_is_read() throws Exception {
        String params = "{\"a\":".repeat(40) + "1" + "}".repeat(40);
        HttpResponse<String> r = send(
                "POST",
                "/api/tasks/hello/trigger",
                HttpRequest.BodyPublishers.ofString("{\"params\":{\"deep\":" + params + "}}"),
                "application/json");
        assertThat(r.statusCode()).as(r.body()).isLessThan(500);
        assertThat(r.body()).doesNotContain("nested deeper");
    }

    @Test
    void a_body_in_an_unknown_charset_is_a_400_naming_the_content_type() throws Exception {
        HttpResponse<String> r = send(
                "POST", "/api/tasks", HttpRequest.BodyPublishers.ofString("{}"), "application/json; charset=klingon-8");

        assertThat(r.statusCode()).isEqualTo(400);
        JsonNode field = json(r).get("error").get("fields").get(0);
        assertThat(field.get("field").asText()).isEqualTo("Content-Type");
        assertThat(field.get("reason").asText()).contains("klingon-8");
    }

    /** Every route that takes a body, with every kind of broken body: a 4xx (or a 2xx that ignores it), never a 5xx. */
    @Test
    void no_malformed_body_gets_a_server_error_on_any_route() throws Exception {
        List<byte[]> bodies = new ArrayList<>();
        for (String s : List.of(
                "",
                "{",
                "null",
                "[]",
                "\"text\"",
                "123",
                "true",
                "{}",
                "{\"executorId\":{\"x\":1},\"run\":7}",
                "{\"attempt\":\"many\",\"success\":[1]}",
                "{\"params\":" + "1".repeat(5000) + "}",
                "{\"a\":1} trailing",
                "[".repeat(100),
                "{\"a\":\"\u0000\u0001\"}",
                "{\"taskName\":\"\\ud800\"}",
                "{\"groups\":[\"default\"]}",
                "{\"executorId\":\"x\",\"groups\":[\"default\"],\"max\":-1,\"waitMillis\":-5}",
                "{\"executorId\":\"x\",\"run\":{\"instanceId\":-1,\"attempt\":0},\"lines\":[null]}")) {
            bodies.add(s.getBytes(StandardCharsets.UTF_8));
        }
        bodies.add(new byte[] {'{', '"', (byte) 0xC3, (byte) 0x28, '"', ':', '1', '}'}); // invalid UTF-8

        List<String> failures = new ArrayList<>();
        for (Route route : Routes.table(null)) {
            if (route.method() != Route.Method.POST && route.method() != Route.Method.PUT) {
                continue;
            }
            String path = route.path().replace("{name}", "hello").replace("{id}", Long.toString(instance));
            for (byte[] body : bodies) {
                HttpResponse<String> r = send(
                        route.method().name(), path, HttpRequest.BodyPublishers.ofByteArray(body), "application/json");
                if (r.statusCode() >= 500) {
                    failures.add(route.method() + " " + path + " <- " + new String(body, StandardCharsets.UTF_8) + ": "
                            + r.statusCode() + " " + r.body());
                }
            }
        }
        assertThat(failures).isEmpty();
    }

    /**
     * A route that answers without reading the body (here the 401 of a request with no token) must not leave the
     * rest of it unread: Jetty would close a connection whose answer already went out as keep-alive, and a client
     * reusing it (every pooling client does) would find it dead. The body's second half is sent only once the
     * server has had time to answer the first; the server must wait for it, then serve the next request.
     */
    @Test
    void a_body_no_handler_reads_still_leaves_the_connection_usable() throws Exception {
        byte[] body = "{\"params\":{\"day\":\"2026-12-03\"}}".getBytes(StandardCharsets.UTF_8);
        int half = body.length / 2;
        try (Socket socket = new Socket("127.0.0.1", node.api.port())) {
            socket.setSoTimeout(30_000);
            var out = socket.getOutputStream();
            var in = socket.getInputStream();
            out.write(("POST /api/tasks/hello/trigger HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                            + "Content-Length: " + body.length + "\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.write(body, 0, half);
            out.flush();
            // An answer to half a body would come within this wait; a server that reads the body sends none.
            long until = System.nanoTime() + Duration.ofMillis(300).toNanos();
            while (in.available() == 0 && System.nanoTime() < until) {
                Thread.onSpinWait();
            }
            out.write(body, half, body.length - half);
            // The second request asks to close after its answer, so the whole exchange ends at the end of the stream.
            out.write("GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();

            String answers = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            assertThat(answers).startsWith("HTTP/1.1 401");
            assertThat(answers.indexOf("HTTP/1.1 200")).as(answers).isPositive();
        }
    }

    @Test
    void every_api_answer_says_nosniff_errors_included() throws Exception {
        ApiClient admin = node.client(TestNode.ADMIN);
        for (String path : List.of("/api/tasks", "/api/tasks/nope", "/api/nothing-here", "/healthz")) {
            HttpResponse<String> r = http.send(
                    HttpRequest.newBuilder(url(path))
                            .header("Authorization", "Bearer " + TestNode.ADMIN)
                            .GET()
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(r.headers().firstValue("X-Content-Type-Options"))
                    .as(path)
                    .hasValue("nosniff");
        }
        HttpResponse<String> anonymous = http.send(
                HttpRequest.newBuilder(url("/api/tasks")).GET().build(), HttpResponse.BodyHandlers.ofString());
        assertThat(anonymous.statusCode()).isEqualTo(401);
        assertThat(anonymous.headers().firstValue("X-Content-Type-Options")).hasValue("nosniff");
        assertThat(admin.get("/api/nothing-here")
                        .json()
                        .get("error")
                        .get("message")
                        .asText())
                .isEqualTo("no route GET /api/nothing-here; see /api/openapi.json");
    }
}
