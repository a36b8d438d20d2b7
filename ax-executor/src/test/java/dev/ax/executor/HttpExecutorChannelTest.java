package dev.ax.executor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.ax.domain.protocol.Completion;
import dev.ax.domain.protocol.Heartbeat;
import dev.ax.domain.protocol.HeartbeatAnswer;
import dev.ax.domain.protocol.LogChunk;
import dev.ax.domain.protocol.Poll;
import dev.ax.domain.protocol.Register;
import dev.ax.domain.protocol.RegisterAnswer;
import dev.ax.domain.protocol.ReportAnswer;
import dev.ax.domain.protocol.RunRef;
import dev.ax.domain.protocol.Started;
import dev.ax.domain.protocol.WorkItem;
import dev.ax.domain.run.FailureKind;
import dev.ax.executor.ExecutorChannel.ChannelException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The HTTP channel against a real (JDK) HTTP server on loopback. */
class HttpExecutorChannelTest {

    private static final ObjectMapper JSON = HttpExecutorChannel.defaultMapper();

    /** What the server saw. */
    record Seen(String method, String path, String authorization, String contentType, String body) {}

    /** What the server answers on a path. */
    record Answer(int status, String body) {}

    private final List<Seen> seen = new CopyOnWriteArrayList<>();
    private final Map<String, Answer> answers = new ConcurrentHashMap<>();
    private HttpServer server;
    private HttpExecutorChannel channel;
    private URI base;

    @BeforeEach
    void startServer() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", this::handle);
        server.start();
        base = URI.create("http://127.0.0.1:" + server.getAddress().getPort());
        channel = new HttpExecutorChannel(base, "s3cret");
    }

    @AfterEach
    void stopServer() {
        channel.close();
        server.stop(0);
    }

    private void handle(HttpExchange exchange) throws IOException {
        String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
        String path = exchange.getRequestURI().getPath();
        seen.add(new Seen(
                exchange.getRequestMethod(),
                path,
                exchange.getRequestHeaders().getFirst("Authorization"),
                exchange.getRequestHeaders().getFirst("Content-Type"),
                body));
        Answer answer = answers.getOrDefault(path, new Answer(404, "no route " + path));
        byte[] bytes = answer.body().getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        exchange.sendResponseHeaders(answer.status(), bytes.length == 0 ? -1 : bytes.length);
        exchange.getResponseBody().write(bytes);
        exchange.close();
    }

    private void answer(String call, int status, String body) {
        answers.put("/api/executor/" + call, new Answer(status, body));
    }

    @Test
    void posts_the_record_as_json_with_the_bearer_token() throws Exception {
        answer(
                "register",
                200,
                "{\"leaseMillis\":30000,\"heartbeatMillis\":10000,\"abandon\":[{\"instanceId\":5,"
                        + "\"attempt\":2}],\"someNewField\":true}");

        RegisterAnswer answer = channel.register(
                new Register("exec-1", "sess-1", List.of("default"), "host-a", 42, "1.0", List.of(new RunRef(5, 2))));

        assertThat(answer).isEqualTo(new RegisterAnswer(30_000, 10_000, List.of(new RunRef(5, 2))));
        Seen request = seen.getFirst();
        assertThat(request.method()).isEqualTo("POST");
        assertThat(request.path()).isEqualTo("/api/executor/register");
        assertThat(request.authorization()).isEqualTo("Bearer s3cret");
        assertThat(request.contentType()).isEqualTo("application/json");
        JsonNode body = JSON.readTree(request.body());
        assertThat(body.get("executorId").asText()).isEqualTo("exec-1");
        assertThat(body.get("session").asText()).isEqualTo("sess-1");
        assertThat(body.get("held").get(0).get("instanceId").asLong()).isEqualTo(5);
    }

    @Test
    void poll_round_trips_work_items_with_instants_as_iso_strings() throws Exception {
        WorkItem item = new WorkItem(
                11,
                2,
                "nightly",
                4,
                "req-11",
                Instant.parse("2024-03-01T02:00:00Z"),
                "shell",
                "echo hi",
                Map.of("DATE", "2024-03-01"),
                "/srv",
                60L,
                30_000);
        String json = JSON.writeValueAsString(Map.of("items", List.of(item)));
        assertThat(json).contains("\"scheduledAt\":\"2024-03-01T02:00:00Z\"");
        answer("poll", 200, json);

        List<WorkItem> items = channel.poll(new Poll("exec-1", List.of("default"), 3, 1_000));

        assertThat(items).containsExactly(item);
        JsonNode body = JSON.readTree(seen.getFirst().body());
        assertThat(body.get("max").asInt()).isEqualTo(3);
        assertThat(body.get("waitMillis").asLong()).isEqualTo(1_000);
        assertThat(body.get("groups").get(0).asText()).isEqualTo("default");
    }

    @Test
    void an_empty_poll_answer_means_no_work() {
        answer("poll", 200, "{\"items\":[]}");
        assertThat(channel.poll(new Poll("exec-1", List.of("default"), 1, 0))).isEmpty();
        answer("poll", 200, "");
        assertThat(channel.poll(new Poll("exec-1", List.of("default"), 1, 0))).isEmpty();
    }

    @Test
    void sends_heartbeats_and_reports_to_their_own_paths() {
        RunRef run = new RunRef(3, 1);
        answer("heartbeat", 200, "{\"renewed\":[{\"instanceId\":3,\"attempt\":1}],\"abandon\":[]}");
        answer("started", 200, "{\"accepted\":true}");
        answer("log", 200, "{\"accepted\":true}");
        answer("complete", 200, "{\"accepted\":true,\"reason\":null}");

        assertThat(channel.heartbeat(new Heartbeat("exec-1", "s", List.of(run))))
                .isEqualTo(new HeartbeatAnswer(List.of(run), List.of()));
        assertThat(channel.started(new Started("exec-1", run, 99)).accepted()).isTrue();
        assertThat(channel.log(new LogChunk("exec-1", run, "stdout", List.of("a", "b")))
                        .accepted())
                .isTrue();
        assertThat(channel.complete(new Completion("exec-1", run, false, FailureKind.EXIT_CODE, 7, "exited 7"))
                        .accepted())
                .isTrue();

        assertThat(seen)
                .extracting(Seen::path)
                .containsExactly(
                        "/api/executor/heartbeat",
                        "/api/executor/started",
                        "/api/executor/log",
                        "/api/executor/complete");
        assertThat(seen.getLast().body())
                .contains("\"failureKind\":\"EXIT_CODE\"")
                .contains("\"exitCode\":7");
    }

    @Test
    void a_refused_token_is_a_channel_exception_that_says_so() {
        answer("register", 401, "{\"error\":\"bad token\"}");

        assertThatThrownBy(
                        () -> channel.register(new Register("exec-1", "s", List.of("default"), "h", 1, "v", List.of())))
                .isInstanceOf(ChannelException.class)
                .hasMessage("executor token refused by server (HTTP 401)");

        answer("heartbeat", 403, "");
        assertThatThrownBy(() -> channel.heartbeat(new Heartbeat("exec-1", "s", List.of())))
                .isInstanceOf(ChannelException.class)
                .hasMessage("executor token refused by server (HTTP 403)");
    }

    @Test
    void a_409_on_a_report_is_a_refusal_not_an_error() {
        answer("complete", 409, "{\"accepted\":false,\"reason\":\"attempt 1 no longer holds the lease\"}");
        answer("log", 409, "not json");

        ReportAnswer answer = channel.complete(new Completion("exec-1", new RunRef(3, 1), true, null, 0, "ok"));
        ReportAnswer logAnswer = channel.log(new LogChunk("exec-1", new RunRef(3, 1), "stdout", List.of("x")));

        assertThat(answer).isEqualTo(ReportAnswer.refused("attempt 1 no longer holds the lease"));
        assertThat(logAnswer.accepted()).isFalse();
        assertThat(logAnswer.reason()).contains("409").contains("not json");
    }

    @Test
    void other_statuses_are_channel_exceptions_with_the_status_and_an_excerpt() {
        answer("heartbeat", 500, "database is on fire " + "x".repeat(1_000));

        assertThatThrownBy(() -> channel.heartbeat(new Heartbeat("exec-1", "s", List.of())))
                .isInstanceOf(ChannelException.class)
                .hasMessageContaining("HTTP 500")
                .hasMessageContaining("database is on fire")
                .satisfies(e -> assertThat(e.getMessage()).hasSizeLessThan(400));
    }

    @Test
    void an_unreadable_answer_is_a_channel_exception() {
        answer("heartbeat", 200, "<html>proxy login</html>");

        assertThatThrownBy(() -> channel.heartbeat(new Heartbeat("exec-1", "s", List.of())))
                .isInstanceOf(ChannelException.class)
                .hasMessageContaining("unreadable answer");
    }

    @Test
    void an_unreachable_server_is_a_channel_exception() {
        server.stop(0);

        assertThatThrownBy(() -> channel.heartbeat(new Heartbeat("exec-1", "s", List.of())))
                .isInstanceOf(ChannelException.class)
                .hasMessageContaining("cannot reach server");
    }

    @Test
    void keeps_a_path_prefix_of_the_server_url() {
        answers.put("/ax/api/executor/heartbeat", new Answer(200, "{\"renewed\":[],\"abandon\":[]}"));
        try (HttpExecutorChannel prefixed = new HttpExecutorChannel(URI.create(base + "/ax/"), "s3cret")) {
            prefixed.heartbeat(new Heartbeat("exec-1", "s", List.of()));
        }
        assertThat(seen.getLast().path()).isEqualTo("/ax/api/executor/heartbeat");
    }

    @Test
    void requires_a_token() {
        assertThatThrownBy(() -> new HttpExecutorChannel(base, " ")).hasMessageContaining("token");
    }

    /** A channel that may send at most {@code max} bytes a request, to see the splitting without megabytes of test data. */
    private HttpExecutorChannel bounded(int max) {
        return new HttpExecutorChannel(base, "s3cret", JSON, null, max);
    }

    private List<String> linesSentTo(String path) throws Exception {
        List<String> lines = new ArrayList<>();
        for (Seen request : seen) {
            if (request.path().equals(path)) {
                JSON.readTree(request.body()).get("lines").forEach(l -> lines.add(l.asText()));
            }
        }
        return lines;
    }

    @Test
    void a_log_chunk_too_large_for_one_request_goes_in_several_in_order() throws Exception {
        answer("log", 200, "{\"accepted\":true}");
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            lines.add(i + " " + "\u0001".repeat(i * 5)); // control characters: six bytes each in JSON
        }
        String longLine = "x".repeat(20_000);
        lines.add(longLine);

        try (HttpExecutorChannel channel = bounded(4096)) {
            assertThat(channel.log(new LogChunk("exec-1", new RunRef(3, 1), "stdout", lines))
                            .accepted())
                    .isTrue();
        }

        assertThat(seen)
                .hasSizeGreaterThan(10)
                .allSatisfy(r -> assertThat(r.body().getBytes(StandardCharsets.UTF_8).length)
                        .isLessThanOrEqualTo(4096));
        List<String> sent = linesSentTo("/api/executor/log");
        assertThat(sent.subList(0, 100)).isEqualTo(lines.subList(0, 100));
        assertThat(String.join("", sent.subList(100, sent.size()))).isEqualTo(longLine);
    }

    @Test
    void a_completion_too_large_ships_its_tail_as_log_first_and_cuts_its_message() throws Exception {
        answer("log", 200, "{\"accepted\":true}");
        answer("complete", 200, "{\"accepted\":true}");
        RunRef run = new RunRef(3, 1);
        List<String> tail = IntStream.range(0, 200)
                .mapToObj(i -> "line " + i + " " + "y".repeat(200))
                .toList();
        Completion completion = new Completion(
                "exec-1",
                run,
                false,
                FailureKind.EXIT_CODE,
                1,
                "z".repeat(20_000),
                null,
                List.of(new LogChunk("exec-1", run, "stderr", tail)));

        try (HttpExecutorChannel channel = bounded(16 * 1024)) {
            assertThat(channel.complete(completion).accepted()).isTrue();
        }

        assertThat(seen)
                .allSatisfy(r -> assertThat(r.body().getBytes(StandardCharsets.UTF_8).length)
                        .isLessThanOrEqualTo(16 * 1024));
        assertThat(seen.getLast().path()).isEqualTo("/api/executor/complete");
        assertThat(linesSentTo("/api/executor/log")).isEqualTo(tail);
        JsonNode sent = JSON.readTree(seen.getLast().body());
        assertThat(sent.get("tail")).isEmpty();
        assertThat(sent.get("message").asText())
                .hasSize(HttpExecutorChannel.MAX_TEXT_CHARS + 1)
                .endsWith("…");
    }

    @Test
    void a_completion_that_fits_carries_its_tail_in_one_request() {
        answer("complete", 200, "{\"accepted\":true}");
        RunRef run = new RunRef(3, 1);
        Completion completion = new Completion(
                "exec-1", run, true, null, 0, "ok", List.of(new LogChunk("exec-1", run, "stdout", List.of("done"))));

        assertThat(channel.complete(completion).accepted()).isTrue();

        assertThat(seen).extracting(Seen::path).containsExactly("/api/executor/complete");
        assertThat(seen.getFirst().body()).contains("\"done\"");
    }

    @Test
    void a_node_that_does_not_answer_is_left_for_the_next_one_which_calls_keep_using() throws Exception {
        URI dead;
        try (ServerSocket closed = new ServerSocket(0)) {
            dead = URI.create("http://127.0.0.1:" + closed.getLocalPort()); // nothing listens once it is closed
        }
        answers.put(
                "/api/executor/register",
                new Answer(200, "{\"leaseMillis\":30000,\"heartbeatMillis\":10000,\"abandon\":[]}"));
        answers.put("/api/executor/heartbeat", new Answer(200, "{\"renewed\":[],\"abandon\":[]}"));
        try (HttpExecutorChannel cluster = new HttpExecutorChannel(List.of(dead, base), "s3cret", null)) {
            assertThat(cluster.register(new Register("e1", "s1", List.of("default"), "h", 1, "v", List.of()))
                            .leaseMillis())
                    .isEqualTo(30_000);
            cluster.heartbeat(new Heartbeat("e1", "s1", List.of()));
            assertThat(seen)
                    .extracting(Seen::path)
                    .containsExactly("/api/executor/register", "/api/executor/heartbeat");
        }
    }

    @Test
    void a_node_that_answers_503_is_left_too_and_when_none_answers_the_call_fails() throws Exception {
        HttpServer busy = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        busy.createContext("/", exchange -> {
            exchange.sendResponseHeaders(503, -1);
            exchange.close();
        });
        busy.start();
        try (HttpExecutorChannel cluster = new HttpExecutorChannel(
                List.of(URI.create("http://127.0.0.1:" + busy.getAddress().getPort()), base), "s3cret", null)) {
            answers.put("/api/executor/heartbeat", new Answer(200, "{\"renewed\":[],\"abandon\":[]}"));
            cluster.heartbeat(new Heartbeat("e1", "s1", List.of()));
            assertThat(seen).extracting(Seen::path).containsExactly("/api/executor/heartbeat");

            server.stop(0); // now neither answers
            assertThatThrownBy(() -> cluster.heartbeat(new Heartbeat("e1", "s1", List.of())))
                    .isInstanceOf(ChannelException.class);
        } finally {
            busy.stop(0);
        }
    }
}
