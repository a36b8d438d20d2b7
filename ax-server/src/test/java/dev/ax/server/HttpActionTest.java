package dev.ax.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpServer;
import dev.ax.domain.run.Cause;
import dev.ax.domain.run.EventType;
import dev.ax.domain.run.RunState;
import dev.ax.scheduler.SchedulerConfig;
import dev.ax.store.EventRow;
import dev.ax.store.RunRow;
import dev.ax.store.TestDatabases;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The http action against a real local HTTP server, through the in-process executor. */
class HttpActionTest {
    @TempDir
    Path dir;

    AxServer server;
    HttpServer service;
    final AtomicInteger calls = new AtomicInteger();
    final List<String> requestIds = new CopyOnWriteArrayList<>();
    final List<String> attempts = new CopyOnWriteArrayList<>();
    final List<String> bodies = new CopyOnWriteArrayList<>();
    volatile int[] statuses = {200};

    @BeforeEach
    void start() throws Exception {
        service = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        service.createContext("/jobs", exchange -> {
            int n = calls.getAndIncrement();
            requestIds.add(exchange.getRequestHeaders().getFirst("X-AX-Request-ID"));
            attempts.add(exchange.getRequestHeaders().getFirst("X-AX-Attempt"));
            bodies.add(new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
            int status = statuses[Math.min(n, statuses.length - 1)];
            byte[] answer = ("{\"call\":" + n + "}").getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(status, answer.length);
            exchange.getResponseBody().write(answer);
            exchange.close();
        });
        service.start();
        server = AxServer.start(new ServerConfig(
                0,
                dir,
                TestDatabases.h2(),
                List.of("default"),
                "admin-token",
                "node-1",
                SchedulerConfig.DEFAULT,
                Duration.ZERO));
    }

    @AfterEach
    void stop() {
        server.close();
        service.stop(0);
    }

    String url() {
        return "http://127.0.0.1:" + service.getAddress().getPort() + "/jobs";
    }

    void createTask(String name, Map<String, Object> action, Map<String, Object> policy) {
        server.node()
                .tasks()
                .create(
                        Map.of(
                                "taskName",
                                name,
                                "trigger",
                                Map.of("type", "event"),
                                "action",
                                action,
                                "policy",
                                policy),
                        "test");
    }

    RunRow awaitEnd(long id) {
        await().atMost(Duration.ofSeconds(30)).until(() -> run(id).state().isTerminal());
        return run(id);
    }

    RunRow run(long id) {
        return server.store().tx(tx -> server.store().runs().find(tx, id).orElseThrow());
    }

    @Test
    void retries_503_twice_then_succeeds_on_attempt_3_with_one_request_id() {
        statuses = new int[] {503, 503, 200};
        createTask(
                "notify",
                Map.of(
                        "type",
                        "http",
                        "method",
                        "POST",
                        "url",
                        url() + "?day={{date}}",
                        "body",
                        Map.of("day", "{{date}}", "task", "{{taskName}}")),
                Map.of("maxRetries", 3, "retryIntervalSeconds", 0));
        long id = server.node().tasks().trigger("notify", Map.of(), Cause.EVENT, "test");
        RunRow r = awaitEnd(id);
        assertThat(r.state()).isEqualTo(RunState.SUCCESS);
        assertThat(r.attempt()).isEqualTo(3);
        assertThat(r.exitCode()).isEqualTo(200);
        // One request id for the run across attempts: the service deduplicates on it.
        assertThat(requestIds).hasSize(3).containsOnly("ax-" + id);
        assertThat(attempts).containsExactly("1", "2", "3");
        assertThat(bodies.getFirst()).contains("\"task\":\"notify\"");
        String log = String.join(
                "\n",
                server.store().tx(tx -> server.store().logs().read(tx, id, 0, 100)).stream()
                        .map(l -> l.text())
                        .toList());
        assertThat(log).contains("HTTP 503").contains("HTTP 200").contains("{\"call\":2}");
    }

    @Test
    void a_400_fails_at_once_without_retry() {
        statuses = new int[] {400};
        createTask("bad", Map.of("type", "http", "url", url()), Map.of("maxRetries", 3, "retryIntervalSeconds", 0));
        long id = server.node().tasks().trigger("bad", Map.of(), Cause.EVENT, "test");
        RunRow r = awaitEnd(id);
        assertThat(r.state()).isEqualTo(RunState.FAILED);
        assertThat(r.attempt()).isEqualTo(1);
        assertThat(calls).hasValue(1);
    }

    @Test
    void a_status_listed_in_policy_retryable_is_retried() {
        statuses = new int[] {409, 200};
        createTask(
                "conflicting",
                Map.of("type", "http", "url", url()),
                Map.of("maxRetries", 2, "retryIntervalSeconds", 0, "retryable", Map.of("httpStatuses", List.of(409))));
        long id = server.node().tasks().trigger("conflicting", Map.of(), Cause.EVENT, "test");
        assertThat(awaitEnd(id).state()).isEqualTo(RunState.SUCCESS);
        assertThat(calls).hasValue(2);
    }

    @Test
    void an_async_action_stays_running_until_the_service_reports() {
        statuses = new int[] {202};
        createTask("long_job", Map.of("type", "http", "url", url(), "async", true), Map.of());
        long id = server.node().tasks().trigger("long_job", Map.of(), Cause.EVENT, "test");
        await().atMost(Duration.ofSeconds(15)).until(() -> calls.get() == 1);
        await().pollDelay(Duration.ofMillis(500))
                .atMost(Duration.ofSeconds(5))
                .until(() -> run(id).state() == RunState.RUNNING);
        var refused = server.node().dispatcher().completeFromService(id, 7, true, 200, "wrong attempt", "svc");
        assertThat(refused.accepted()).isFalse();
        var ok = server.node().dispatcher().completeFromService(id, 1, true, 200, "rows loaded: 42", "svc");
        assertThat(ok.accepted()).isTrue();
        assertThat(run(id).state()).isEqualTo(RunState.SUCCESS);
        assertThat(run(id).message()).contains("rows loaded: 42");
    }

    @Test
    void a_second_run_for_the_same_business_date_is_skipped_by_its_idempotency_key() {
        createTask(
                "daily_load",
                Map.of("type", "http", "url", url()),
                Map.of("idempotencyKey", "{{taskName}}:{{params.day}}", "overflow", "ALLOW"));
        long first = server.node().tasks().trigger("daily_load", Map.of("day", "2026-11-28"), Cause.EVENT, "test");
        assertThat(awaitEnd(first).state()).isEqualTo(RunState.SUCCESS);
        assertThat(requestIds).containsExactly("daily_load:2026-11-28");

        long second = server.node().tasks().trigger("daily_load", Map.of("day", "2026-11-28"), Cause.EVENT, "test");
        assertThat(run(second).state()).isEqualTo(RunState.SKIPPED);
        List<EventRow> events = server.store().tx(tx -> server.store().events().forRun(tx, second, 0, 10));
        assertThat(events)
                .filteredOn(e -> e.type() == EventType.DEDUPLICATED)
                .singleElement()
                .satisfies(e -> assertThat(e.message()).contains("run " + first));

        long forced =
                server.node().tasks().trigger("daily_load", Map.of("day", "2026-11-28"), Cause.EVENT, "test", true);
        assertThat(awaitEnd(forced).state()).isEqualTo(RunState.SUCCESS);
        assertThat(calls).hasValue(2);
    }
}
