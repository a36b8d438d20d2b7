package dev.ax.sdk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ax.domain.access.Principal;
import dev.ax.domain.access.Role;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The SDK worker against a real server over real HTTP: what a handler sees, and every way a run ends. */
class AxWorkerTest {
    /** An operator deciding on approvals from the server side. */
    static final Principal OLGA = Principal.of("olga", Role.OPERATOR);

    private static final Duration WAIT = Duration.ofSeconds(20);

    @TempDir
    Path dir;

    TestAx ax;
    AxWorker worker;

    @BeforeEach
    void startServer() {
        ax = TestAx.start(dir);
    }

    @AfterEach
    void stop() {
        if (worker != null) {
            worker.close();
            assertThat(worker.errorCount())
                    .as("unexpected errors in the worker's loops")
                    .isZero();
        }
        assertThat(ax.server.node().loopErrors()).isZero();
        ax.close();
    }

    @Test
    void a_handler_runs_and_succeeds_with_its_log_and_context() {
        AtomicReference<String> seen = new AtomicReference<>();
        worker = ax.worker("orders")
                .handler("syncOrders", ctx -> {
                    seen.set(ctx.requestId() + " " + ctx.instanceId() + " " + ctx.attempt() + " " + ctx.taskName() + " "
                            + ctx.param("since") + " " + ctx.params().get("limit") + " " + ctx.isCancelled());
                    ctx.log("syncing orders since " + ctx.param("since"));
                    ctx.progress(50, "half way");
                    ctx.log("line one\nline two");
                    return "synced 3 orders";
                })
                .build()
                .start();
        ax.sdkTask("sync_orders", "syncOrders", "{}");

        long id = ax.client.trigger("sync_orders", Map.of("since", "2024-05-01", "limit", 10));

        await().atMost(WAIT).until(() -> ax.state(id).equals("SUCCESS"));
        JsonNode run = ax.client.instance(id);
        assertThat(run.path("message").asText()).isEqualTo("synced 3 orders");
        assertThat(run.path("executorId").asText()).isEqualTo("sdk-test");
        assertThat(run.path("pid").asLong()).isEqualTo(ProcessHandle.current().pid());
        assertThat(seen.get()).isEqualTo("ax-" + id + " " + id + " 1 sync_orders 2024-05-01 10 false");
        assertThat(ax.client.log(id)).isEqualTo("""
                syncing orders since 2024-05-01
                [progress] 50% half way
                line one
                line two
                """);
        assertThat(worker.activeRuns()).isEmpty();
    }

    @Test
    void a_throwing_handler_fails_after_its_retries_with_the_exception_as_message() {
        AtomicInteger calls = new AtomicInteger();
        worker = ax.worker("orders")
                .handler("explode", ctx -> {
                    calls.incrementAndGet();
                    throw new IllegalStateException("warehouse API said no");
                })
                .build()
                .start();
        ax.sdkTask("explode", "explode", "{\"maxRetries\":1,\"retryIntervalSeconds\":0}");

        long id = ax.client.trigger("explode", Map.of());

        await().atMost(WAIT).until(() -> ax.state(id).equals("FAILED"));
        JsonNode run = ax.client.instance(id);
        assertThat(run.path("attempt").asInt()).isEqualTo(2);
        assertThat(calls).hasValue(2);
        assertThat(run.path("failureKind").asText()).isEqualTo("EXIT_CODE");
        assertThat(run.path("exitCode").isNull()).isTrue();
        assertThat(run.path("message").asText())
                .isEqualTo("failed: java.lang.IllegalStateException: warehouse API said no");
        assertThat(ax.client.log(id))
                .contains(
                        "[ax] handler 'explode' failed:",
                        "java.lang.IllegalStateException: warehouse API said no",
                        "at dev.ax.sdk.AxWorkerTest");
    }

    @Test
    void a_non_retryable_exception_fails_the_run_without_another_attempt() {
        AtomicInteger calls = new AtomicInteger();
        worker = ax.worker("orders")
                .handler("strict", ctx -> {
                    calls.incrementAndGet();
                    throw new NonRetryableException("order 17 does not exist");
                })
                .build()
                .start();
        ax.sdkTask("strict", "strict", "{\"maxRetries\":3,\"retryIntervalSeconds\":0}");

        long id = ax.client.trigger("strict", Map.of());

        await().atMost(WAIT).until(() -> ax.state(id).equals("FAILED"));
        JsonNode run = ax.client.instance(id);
        assertThat(run.path("attempt").asInt()).isEqualTo(1);
        assertThat(calls).hasValue(1);
        assertThat(run.path("failureKind").asText()).isEqualTo("FATAL");
        assertThat(run.path("message").asText())
                .isEqualTo("failed, not retryable: dev.ax.sdk.NonRetryableException: order 17 does not exist");
    }

    @Test
    void terminate_interrupts_a_handler_blocked_in_await() {
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch never = new CountDownLatch(1);
        AtomicBoolean interrupted = new AtomicBoolean();
        AtomicBoolean cancelledSeen = new AtomicBoolean();
        worker = ax.worker("orders")
                .handler("blocker", ctx -> {
                    entered.countDown();
                    try {
                        never.await();
                        return "not reached";
                    } catch (InterruptedException e) {
                        interrupted.set(true);
                        cancelledSeen.set(ctx.isCancelled());
                        throw e;
                    }
                })
                .build()
                .start();
        ax.sdkTask("blocker", "blocker", "{\"maxRetries\":2,\"retryIntervalSeconds\":0}");
        long id = ax.client.trigger("blocker", Map.of());
        await().atMost(WAIT).until(() -> entered.getCount() == 0);

        ax.server.node().runs().terminate(id, "ops", "stop");

        await().atMost(WAIT).untilTrue(interrupted);
        assertThat(cancelledSeen).isTrue();
        await().atMost(WAIT).until(() -> worker.activeRuns().isEmpty());
        JsonNode run = ax.client.instance(id);
        assertThat(run.path("state").asText())
                .as("terminated is final: no retry")
                .isEqualTo("TERMINATED");
        assertThat(run.path("attempt").asInt()).isEqualTo(1);
        assertThat(run.path("message").asText()).contains("terminated by ops", "stop");
    }

    @Test
    void the_timeout_interrupts_a_sleeping_handler_and_fails_the_run_as_timeout() {
        AtomicBoolean interrupted = new AtomicBoolean();
        worker = ax.worker("orders")
                .handler("sleeper", ctx -> {
                    try {
                        Thread.sleep(Duration.ofMinutes(5));
                        return "not reached";
                    } catch (InterruptedException e) {
                        interrupted.set(ctx.isCancelled());
                        throw e;
                    }
                })
                .build()
                .start();
        ax.sdkTask("sleeper", "sleeper", "{\"timeoutSeconds\":1,\"retryable\":false}");

        long id = ax.client.trigger("sleeper", Map.of());

        await().atMost(WAIT).until(() -> ax.state(id).equals("FAILED"));
        JsonNode run = ax.client.instance(id);
        assertThat(interrupted).isTrue();
        assertThat(run.path("failureKind").asText()).isEqualTo("TIMEOUT");
        assertThat(run.path("message").asText())
                .isEqualTo("timed out: handler 'sleeper' ran longer than the timeout of 1 s and was interrupted");
    }

    @Test
    void an_unknown_handler_fails_the_run_at_once_naming_the_handlers_there_are() {
        worker = ax.worker("orders")
                .handler("syncOrders", ctx -> "ok")
                .handler("billing", ctx -> "ok")
                .build()
                .start();
        ax.sdkTask("typo", "syncOrder", "{\"maxRetries\":3}");

        long id = ax.client.trigger("typo", Map.of());

        await().atMost(WAIT).until(() -> ax.state(id).equals("FAILED"));
        JsonNode run = ax.client.instance(id);
        assertThat(run.path("attempt").asInt()).isEqualTo(1);
        assertThat(run.path("failureKind").asText()).isEqualTo("START_ERROR");
        assertThat(run.path("message").asText())
                .isEqualTo(
                        "could not start: no handler 'syncOrder' registered in this worker (handlers: billing, syncOrders)");
    }

    @Test
    void a_shell_task_aimed_at_the_workers_group_fails_as_unsupported() {
        worker = ax.worker("orders").handler("syncOrders", ctx -> "ok").build().start();
        ax.client.apply("""
                {"taskName":"misrouted","trigger":{"type":"event"},"action":{"type":"shell","command":"true","group":"orders"}}""");

        long id = ax.client.trigger("misrouted", Map.of());

        await().atMost(WAIT).until(() -> ax.state(id).equals("FAILED"));
        assertThat(ax.client.instance(id).path("message").asText())
                .endsWith(
                        "action type shell is not supported by this executor (an AX SDK worker runs sdk actions only)");
    }

    @Test
    void close_lets_a_running_handler_finish_and_report_within_the_grace() throws Exception {
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        worker = ax.worker("orders")
                .shutdownGrace(Duration.ofSeconds(10))
                .handler("finishing", ctx -> {
                    entered.countDown();
                    release.await();
                    return "finished during shutdown";
                })
                .build()
                .start();
        ax.sdkTask("finishing", "finishing", "{}");
        long id = ax.client.trigger("finishing", Map.of());
        await().atMost(WAIT).until(() -> entered.getCount() == 0);

        Thread closing = Thread.ofPlatform().start(worker::close);
        await().atMost(WAIT).until(() -> !worker.isRunning()); // polling stopped; the handler still runs
        release.countDown();
        closing.join(Duration.ofSeconds(15));

        assertThat(closing.isAlive()).isFalse();
        assertThat(ax.state(id)).isEqualTo("SUCCESS");
        assertThat(ax.client.instance(id).path("message").asText()).isEqualTo("finished during shutdown");
    }

    @Test
    void runs_up_to_the_concurrency_at_the_same_time() {
        int concurrency = 2;
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger inside = new AtomicInteger();
        List<Integer> peaks = new CopyOnWriteArrayList<>();
        worker = ax.worker("orders")
                .concurrency(concurrency)
                .handler("slow", ctx -> {
                    peaks.add(inside.incrementAndGet());
                    try {
                        release.await();
                    } finally {
                        inside.decrementAndGet();
                    }
                    return null;
                })
                .build()
                .start();
        ax.sdkTask("slow", "slow", "{\"maxConcurrency\":10}");
        List<Long> ids = List.of(
                ax.client.trigger("slow", Map.of()),
                ax.client.trigger("slow", Map.of()),
                ax.client.trigger("slow", Map.of()));

        await().atMost(WAIT).until(() -> inside.get() == concurrency);
        assertThat(ids.stream().filter(id -> ax.state(id).equals("READY")).count())
                .as("the third waits for a slot")
                .isEqualTo(1);
        release.countDown();

        await().atMost(WAIT)
                .until(() -> ids.stream().allMatch(id -> ax.state(id).equals("SUCCESS")));
        assertThat(peaks).allMatch(n -> n <= concurrency);
    }

    @Test
    void a_wrong_token_fails_the_start_at_once() {
        AxWorker bad = AxWorker.builder()
                .server(ax.server.url())
                .token("not-a-token")
                .group("orders")
                .handler("x", ctx -> null)
                .build();
        try {
            Assertions.assertThatThrownBy(bad::start).hasMessageContaining("token refused by server (HTTP 401)");
        } finally {
            bad.close();
        }
    }

    @Test
    void a_handler_waits_for_approval_mid_run_and_goes_on_when_approved() {
        AtomicInteger afterApproval = new AtomicInteger();
        worker = ax.worker("orders")
                .handler("careful", ctx -> {
                    ctx.awaitApproval("1,234 rows will change");
                    afterApproval.incrementAndGet();
                    return "changed";
                })
                .build()
                .start();
        ax.sdkTask("careful", "careful", "{}");
        long id = ax.client.trigger("careful", Map.of());
        await().atMost(WAIT).until(() -> ax.state(id).equals("WAITING_APPROVAL"));
        assertThat(afterApproval).hasValue(0);

        ax.server.node().approvals().approve(id, OLGA, "expected");

        await().atMost(WAIT).until(() -> ax.state(id).equals("SUCCESS"));
        assertThat(afterApproval).hasValue(1);
        assertThat(ax.client.log(id)).contains("waiting for approval: 1,234 rows will change", "approved; going on");
    }

    @Test
    void a_rejected_approval_stops_the_handler() {
        AtomicInteger afterApproval = new AtomicInteger();
        worker = ax.worker("orders")
                .handler("careful", ctx -> {
                    ctx.awaitApproval("drop the table?");
                    afterApproval.incrementAndGet();
                    return "dropped";
                })
                .build()
                .start();
        ax.sdkTask("careful", "careful", "{}");
        long id = ax.client.trigger("careful", Map.of());
        await().atMost(WAIT).until(() -> ax.state(id).equals("WAITING_APPROVAL"));

        ax.server.node().approvals().reject(id, OLGA, "no");

        await().atMost(WAIT).until(() -> worker.activeRuns().isEmpty());
        assertThat(ax.state(id)).isEqualTo("CANCELED");
        assertThat(afterApproval).hasValue(0);
    }
}
