package dev.ax.executor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

import dev.ax.domain.protocol.Completion;
import dev.ax.domain.protocol.Heartbeat;
import dev.ax.domain.protocol.LogChunk;
import dev.ax.domain.protocol.Poll;
import dev.ax.domain.protocol.Register;
import dev.ax.domain.protocol.ReportAnswer;
import dev.ax.domain.protocol.RunRef;
import dev.ax.domain.protocol.WorkItem;
import dev.ax.domain.run.FailureKind;
import dev.ax.executor.shell.ShellRunner;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The agent against an in-memory server, running real {@code sh} commands. */
class ExecutorAgentTest {

    private static final Duration KILL_GRACE = Duration.ofSeconds(1);
    private static final Duration PATIENCE = Duration.ofSeconds(10);

    private final FakeChannel server = new FakeChannel();
    private ExecutorAgent agent;

    @AfterEach
    void closeAgent() {
        if (agent != null) {
            agent.close();
            assertThat(agent.errorCount())
                    .as("unexpected errors in the agent's loops")
                    .isZero();
        }
    }

    private ExecutorAgent startAgent(int concurrency) {
        ExecutorConfig config = ExecutorConfig.of("exec-1", List.of("default", "etl"))
                .withConcurrency(concurrency)
                .withPollWaitMillis(200)
                .withKillGrace(KILL_GRACE);
        agent = new ExecutorAgent(config, server, new ShellRunner(KILL_GRACE));
        agent.start();
        return agent;
    }

    private static WorkItem shell(long id, String command) {
        return shell(id, command, null);
    }

    private static WorkItem shell(long id, String command, Long timeoutSeconds) {
        return new WorkItem(
                id,
                1,
                "task-" + id,
                3,
                "req-" + id,
                Instant.parse("2024-03-01T02:00:00Z"),
                "shell",
                command,
                Map.of("CUSTOM", "custom-value"),
                null,
                timeoutSeconds,
                30_000);
    }

    private Completion awaitCompletion(long id) {
        await().atMost(PATIENCE).until(() -> server.completionsOf(id).size() == 1);
        return server.completionsOf(id).getFirst();
    }

    private static boolean alive(long pid) {
        return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
    }

    @Test
    void reports_success_carrying_its_start_and_the_output_not_shipped_yet() {
        server.work.add(shell(1, "echo hi; echo oops >&2; exit 0"));
        startAgent(2);

        Completion completion = awaitCompletion(1);

        assertThat(completion.success()).isTrue();
        assertThat(completion.failureKind()).isNull();
        assertThat(completion.exitCode()).isZero();
        assertThat(completion.executorId()).isEqualTo("exec-1");
        assertThat(completion.run()).isEqualTo(new RunRef(1, 1));
        assertThat(server.linesOf(1, "stdout")).containsExactly("hi");
        assertThat(server.linesOf(1, "stderr")).containsExactly("oops");
        // A process that ends at once (within RunWorker.START_CARRIED_WITHIN) has its start carried by the outcome; on
        // a
        // busy machine it may take longer and report "started" first. Either way the server hears of the start first.
        if (completion.pid() != null) {
            assertThat(completion.pid()).isPositive();
            assertThat(server.events).containsExactly("complete 1");
        } else {
            assertThat(server.startedOf(1).pid()).isPositive();
            assertThat(server.events).containsExactly("started 1", "complete 1");
        }
        // The outcome carries the output: the log is complete when the server records the end.
        assertThat(completion.tail())
                .extracting(LogChunk::stream, LogChunk::lines)
                .containsExactlyInAnyOrder(tuple("stdout", List.of("hi")), tuple("stderr", List.of("oops")));
        await().atMost(PATIENCE).until(() -> agent.activeRuns().isEmpty());
    }

    @Test
    void a_run_still_going_a_moment_after_its_start_reports_started_on_its_own() {
        server.work.add(shell(5, "sleep 0.5; echo done"));
        startAgent(1);

        Completion completion = awaitCompletion(5);

        assertThat(completion.success()).isTrue();
        assertThat(completion.pid()).isNull();
        assertThat(server.startedOf(5).pid()).isPositive();
        assertThat(server.events).containsExactly("started 5", "complete 5");
        assertThat(server.linesOf(5, "stdout")).containsExactly("done");
    }

    @Test
    void sets_the_ax_variables_from_the_item_fields_over_the_servers_env() {
        WorkItem base = shell(
                2, "echo \"$AX_INSTANCE_ID|$AX_ATTEMPT|$AX_TASK_NAME|$AX_REQUEST_ID|$AX_SCHEDULED_AT" + "|$CUSTOM\"");
        server.work.add(new WorkItem(
                2,
                4,
                base.taskName(),
                3,
                base.requestId(),
                base.scheduledAt(),
                "shell",
                base.command(),
                Map.of("CUSTOM", "custom-value", "AX_INSTANCE_ID", "wrong"),
                null,
                null,
                30_000));
        startAgent(1);

        assertThat(awaitCompletion(2).success()).isTrue();
        assertThat(server.linesOf(2, "stdout")).containsExactly("2|4|task-2|req-2|2024-03-01T02:00:00Z|custom-value");
    }

    @Test
    void reports_a_non_zero_exit_as_an_exit_code_failure() {
        server.work.add(shell(3, "echo before; exit 7"));
        startAgent(2);

        Completion completion = awaitCompletion(3);

        assertThat(completion.success()).isFalse();
        assertThat(completion.failureKind()).isEqualTo(FailureKind.EXIT_CODE);
        assertThat(completion.exitCode()).isEqualTo(7);
        assertThat(completion.message()).isNotBlank();
        assertThat(server.linesOf(3, "stdout")).containsExactly("before");
    }

    @Test
    void reports_a_run_over_its_timeout_as_timeout() {
        server.work.add(shell(4, "sleep 30", 1L));
        startAgent(2);

        Completion completion = awaitCompletion(4);

        assertThat(completion.success()).isFalse();
        assertThat(completion.failureKind()).isEqualTo(FailureKind.TIMEOUT);
        assertThat(completion.exitCode()).isNull();
        assertThat(alive(server.startedOf(4).pid())).isFalse();
    }

    @Test
    void kills_a_run_the_heartbeat_abandons_and_never_reports_it() {
        server.work.add(shell(5, "sleep 30"));
        startAgent(2);
        await().atMost(PATIENCE).until(() -> server.started.size() == 1);
        long pid = server.startedOf(5).pid();
        assertThat(alive(pid)).isTrue();

        server.abandon.add(new RunRef(5, 1));

        await().atMost(PATIENCE).until(() -> !alive(pid));
        await().atMost(PATIENCE).until(() -> agent.activeRuns().isEmpty());
        assertThat(server.completeCalls).hasValue(0);
    }

    @Test
    void kills_a_run_whose_start_the_server_refuses_and_never_reports_it() {
        server.startedAnswer = s -> ReportAnswer.refused("lease lost");
        server.work.add(shell(6, "sleep 30"));
        startAgent(2);

        await().atMost(PATIENCE).until(() -> server.started.size() == 1);
        long pid = server.startedOf(6).pid();
        await().atMost(PATIENCE).until(() -> !alive(pid));
        await().atMost(PATIENCE).until(() -> agent.activeRuns().isEmpty());
        assertThat(server.completeCalls).hasValue(0);
    }

    @Test
    void never_runs_more_than_its_concurrency_at_once() {
        for (long id = 10; id < 15; id++) {
            server.work.add(shell(id, "sleep 0.5"));
        }
        startAgent(2);

        await().atMost(PATIENCE).until(() -> server.completions.size() == 5);

        assertThat(server.completions).allMatch(Completion::success);
        assertThat(server.maxRunning).hasValue(2);
        assertThat(server.polls).extracting(Poll::max).allMatch(max -> max >= 1 && max <= 2);
    }

    @Test
    void retries_the_completion_through_an_outage_and_reports_once() {
        server.failCompletes.set(2);
        server.work.add(shell(20, "exit 0"));
        startAgent(2);

        await().atMost(PATIENCE).until(() -> server.completions.size() == 1);
        await().atMost(PATIENCE).until(() -> agent.activeRuns().isEmpty());

        assertThat(server.completeCalls).hasValue(3);
        assertThat(server.completionsOf(20)).hasSize(1);
    }

    @Test
    void drops_a_run_whose_completion_is_refused() {
        server.completeAnswer = c -> ReportAnswer.refused("attempt 1 no longer holds the lease");
        server.work.add(shell(21, "exit 0"));
        startAgent(2);

        await().atMost(PATIENCE).until(() -> server.completeCalls.get() == 1);
        await().atMost(PATIENCE).until(() -> agent.activeRuns().isEmpty());

        assertThat(server.completions).isEmpty();
        assertThat(server.completeCalls).hasValue(1);
    }

    @Test
    void fails_an_unsupported_action_type_with_a_start_error() {
        WorkItem base = shell(22, "ignored");
        server.work.add(new WorkItem(
                22,
                1,
                base.taskName(),
                1,
                base.requestId(),
                base.scheduledAt(),
                "http",
                "ignored",
                Map.of(),
                null,
                null,
                30_000));
        startAgent(2);

        Completion completion = awaitCompletion(22);

        assertThat(completion.success()).isFalse();
        assertThat(completion.failureKind()).isEqualTo(FailureKind.START_ERROR);
        assertThat(completion.message()).isEqualTo("action type http is not supported by this executor");
        assertThat(server.started).isEmpty();
    }

    @Test
    void fails_a_missing_working_directory_with_a_start_error() {
        WorkItem base = shell(23, "true");
        server.work.add(new WorkItem(
                23,
                1,
                base.taskName(),
                1,
                base.requestId(),
                base.scheduledAt(),
                "shell",
                "true",
                Map.of(),
                "/nonexistent/ax-test-dir",
                null,
                30_000));
        startAgent(2);

        Completion completion = awaitCompletion(23);

        assertThat(completion.success()).isFalse();
        assertThat(completion.failureKind()).isEqualTo(FailureKind.START_ERROR);
        assertThat(completion.message()).contains("/nonexistent/ax-test-dir");
        assertThat(server.started).isEmpty();
    }

    @Test
    void keeps_polling_through_an_outage() {
        server.failPolls.set(3);
        server.work.add(shell(24, "exit 0"));
        startAgent(2);

        assertThat(awaitCompletion(24).success()).isTrue();
        assertThat(server.polls.size()).isGreaterThan(3);
    }

    @Test
    void keeps_shipping_logs_through_an_outage() {
        server.failLogs.set(2);
        // "one" is shipped while the run goes on (the periodic flush), through the outage; "two" comes with the
        // outcome.
        server.work.add(shell(25, "echo one; sleep 1; echo two"));
        startAgent(2);

        Completion completion = awaitCompletion(25);
        assertThat(completion.success()).isTrue();
        assertThat(server.linesOf(25, "stdout")).containsExactly("one", "two");
        assertThat(server.events).containsSubsequence("log 25", "complete 25");
        assertThat(completion.tail()).extracting(LogChunk::lines).containsExactly(List.of("two"));
    }

    @Test
    void registers_a_new_session_and_heartbeats_the_runs_it_holds() {
        server.work.add(shell(26, "sleep 30"));
        startAgent(2);

        Register register = server.registers.getFirst();
        assertThat(register.executorId()).isEqualTo("exec-1");
        assertThat(register.groups()).containsExactly("default", "etl");
        assertThat(register.held()).isEmpty();
        assertThat(register.session()).isEqualTo(agent.session());
        assertThat(UUID.fromString(agent.session())).isNotNull();
        assertThat(agent.heartbeatMillis()).isEqualTo(100);

        RunRef ref = new RunRef(26, 1);
        await().atMost(PATIENCE)
                .until(() -> server.heartbeats.stream().anyMatch(h -> h.held().contains(ref)));
        Heartbeat beat = server.heartbeats.getLast();
        assertThat(beat.session()).isEqualTo(agent.session());
        assertThat(beat.executorId()).isEqualTo("exec-1");
        assertThat(agent.activeRuns()).containsExactly(ref);
    }

    @Test
    void close_kills_running_processes_and_returns_within_the_kill_grace() {
        server.work.add(shell(27, "sleep 30"));
        server.work.add(shell(28, "trap '' TERM; sleep 30")); // ignores SIGTERM: needs the SIGKILL after the grace
        startAgent(2);
        await().atMost(PATIENCE).until(() -> server.started.size() == 2);
        long pid1 = server.startedOf(27).pid();
        long pid2 = server.startedOf(28).pid();

        long t0 = System.nanoTime();
        agent.close();
        Duration took = Duration.ofNanos(System.nanoTime() - t0);

        assertThat(took).isLessThan(KILL_GRACE.plusSeconds(1));
        await().atMost(PATIENCE).until(() -> !alive(pid1) && !alive(pid2));
        assertThat(server.completeCalls).hasValue(0);
        assertThat(agent.activeRuns()).isEmpty();
    }

    /**
     * close() interrupts the poll thread to end a long poll, but a poll in the middle of I/O (the in-process channel's
     * claim: a JDBC statement or its commit) must finish: on a virtual thread the interrupt closed the database
     * socket mid-commit, broke the pooled connection and left the claim's outcome unknown.
     */
    @Test
    void close_ends_a_long_poll_but_never_tears_the_io_of_a_poll_in_flight() throws Exception {
        try (ServerSocket database = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            CountDownLatch reading = new CountDownLatch(1);
            CompletableFuture<Integer> answer = new CompletableFuture<>();
            server.duringPoll = () -> {
                if (answer.isDone()) {
                    return;
                }
                try (Socket s = new Socket(InetAddress.getLoopbackAddress(), database.getLocalPort())) {
                    reading.countDown();
                    answer.complete(s.getInputStream().read());
                } catch (IOException e) {
                    answer.completeExceptionally(e);
                }
            };
            startAgent(1);
            try (Socket peer = database.accept()) {
                assertThat(reading.await(10, TimeUnit.SECONDS)).isTrue();
                agent.close(); // interrupts the poll thread while it waits for the answer
                peer.getOutputStream().write(42);
                assertThat(answer.get(10, TimeUnit.SECONDS)).isEqualTo(42);
            }
        }
    }
}
