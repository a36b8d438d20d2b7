package dev.ax.scheduler;

import static dev.ax.scheduler.TestNodes.event;
import static dev.ax.scheduler.TestNodes.task;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ax.domain.protocol.Completion;
import dev.ax.domain.protocol.Heartbeat;
import dev.ax.domain.protocol.HeartbeatAnswer;
import dev.ax.domain.protocol.LogChunk;
import dev.ax.domain.protocol.Poll;
import dev.ax.domain.protocol.Register;
import dev.ax.domain.protocol.RegisterAnswer;
import dev.ax.domain.protocol.ReportAnswer;
import dev.ax.domain.protocol.WorkItem;
import dev.ax.domain.run.Cause;
import dev.ax.domain.run.EventType;
import dev.ax.domain.run.FailureKind;
import dev.ax.domain.run.RunState;
import dev.ax.store.DbConfig;
import dev.ax.store.EventRow;
import dev.ax.store.RunRow;
import dev.ax.store.Store;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Invariant 5: a run belongs to the executor holding its lease; terminal states are final. */
abstract class LeaseContractTest {
    /** Long enough that a pause of the test between a heartbeat and the next reaping tick does not lose the lease. */
    static final long LEASE_MILLIS = 2000;

    Store store;
    SchedulerNode node;
    Dispatcher dispatcher;

    abstract DbConfig config();

    @BeforeEach
    void open() {
        store = Store.open(config());
        node = TestNodes.node(store, "n1", Duration.ZERO, SchedulerConfig.DEFAULT.withLeaseMillis(LEASE_MILLIS));
        dispatcher = node.dispatcher();
    }

    @AfterEach
    void close() {
        node.close();
        store.close();
    }

    WorkItem claimOne(String executor) throws InterruptedException {
        dispatcher.register(new Register(executor, executor + "-s1", List.of("default"), "test", 1, "t", List.of()));
        // Like a real executor: an empty answer means "ask again" (see Dispatcher.poll).
        List<WorkItem> items = List.of();
        for (int i = 0; i < 20 && items.isEmpty(); i++) {
            items = dispatcher.poll(new Poll(executor, List.of("default"), 1, 500));
        }
        assertThat(items).hasSize(1);
        return items.getFirst();
    }

    RunRow instance(long id) {
        return store.tx(tx -> store.runs().find(tx, id).orElseThrow());
    }

    List<EventRow> events(long id) {
        return store.tx(tx -> store.events().forRun(tx, id, 0, 1000));
    }

    @Test
    void a_lost_lease_fails_the_attempt_and_the_retry_runs_elsewhere() throws Exception {
        node.tasks().create(task("job", event(), "true", Map.of("maxRetries", 1, "retryIntervalSeconds", 0)), "test");
        long id = node.tasks().trigger("job", Map.of(), Cause.EVENT, "test");
        WorkItem first = claimOne("doomed");
        // "doomed" never heartbeats: after the lease the reaper turns the attempt into EXECUTOR_LOST.
        await().atMost(Duration.ofSeconds(10)).until(() -> {
            node.housekeeping().tick();
            return instance(id).state() == RunState.READY;
        });
        assertThat(events(id)).extracting(EventRow::type).contains(EventType.EXECUTOR_LOST, EventType.RETRY_READY);

        WorkItem second = claimOne("healthy");
        assertThat(second.attempt()).isEqualTo(2);
        // The first attempt may have done part of the work: the retry is told, beside the same request id.
        assertThat(second.env()).containsEntry("AX_PREVIOUS_ATTEMPT_LOST", "1");
        assertThat(first.env()).doesNotContainKey("AX_PREVIOUS_ATTEMPT_LOST");
        assertThat(second.requestId()).isEqualTo(first.requestId());
        // The lost executor comes back and reports: refused (fenced), and the refusal is recorded.
        ReportAnswer late = dispatcher.complete(new Completion("doomed", first.ref(), true, null, 0, "late"));
        assertThat(late.accepted()).isFalse();
        assertThat(dispatcher
                        .log(new LogChunk("doomed", first.ref(), "stdout", List.of("x")))
                        .accepted())
                .isFalse();
        assertThat(dispatcher
                        .complete(new Completion("healthy", second.ref(), true, null, 0, "ok"))
                        .accepted())
                .isTrue();
        assertThat(instance(id).state()).isEqualTo(RunState.SUCCESS);
        assertThat(events(id))
                .filteredOn(e -> e.type() == EventType.REPORT_REFUSED)
                .isNotEmpty()
                .allSatisfy(e -> assertThat(e.attempt())
                        .as("the refused attempt, not the current one")
                        .isEqualTo(first.attempt()));
    }

    @Test
    void a_lost_runs_retry_keeps_its_place_in_line_before_later_runs() throws Exception {
        node.tasks().create(task("job", event(), "true", Map.of("maxRetries", 1, "retryIntervalSeconds", 0)), "test");
        node.tasks().create(task("later", event(), "true", Map.of("overflow", "ALLOW")), "test");
        long id = node.tasks().trigger("job", Map.of(), Cause.EVENT, "test");
        claimOne("doomed");
        List<Long> backlog = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            backlog.add(node.tasks().trigger("later", Map.of(), Cause.EVENT, "test"));
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> {
            node.housekeeping().tick();
            return instance(id).state() == RunState.READY;
        });
        assertThat(instance(id).readyAt()).isBefore(instance(backlog.getFirst()).readyAt());
        assertThat(claimOne("healthy").instanceId())
                .as("the lost run, not the backlog that came after it")
                .isEqualTo(id);
    }

    @Test
    void heartbeats_keep_the_lease_and_report_lost_ones() throws Exception {
        node.tasks().create(task("job", event(), "true", null), "test");
        long id = node.tasks().trigger("job", Map.of(), Cause.EVENT, "test");
        WorkItem item = claimOne("steady");
        // Five beats 800 ms apart: twice the lease, so the run is still held only because each beat renewed it.
        for (int i = 0; i < 5; i++) {
            HeartbeatAnswer hb = dispatcher.heartbeat(new Heartbeat("steady", "steady-s1", List.of(item.ref())));
            assertThat(hb.abandon()).isEmpty();
            await().pollDelay(Duration.ofMillis(800)).until(() -> true);
            node.housekeeping().tick();
        }
        assertThat(instance(id).state()).isEqualTo(RunState.RUNNING);
        HeartbeatAnswer stranger = dispatcher.heartbeat(new Heartbeat("stranger", "x", List.of(item.ref())));
        assertThat(stranger.abandon()).containsExactly(item.ref());
    }

    @Test
    void terminal_states_are_final_even_for_the_executor_that_held_the_run() throws Exception {
        node.tasks().create(task("job", event(), "true", null), "test");
        long id = node.tasks().trigger("job", Map.of(), Cause.EVENT, "test");
        WorkItem item = claimOne("e1");
        assertThat(dispatcher
                        .complete(new Completion("e1", item.ref(), false, FailureKind.EXIT_CODE, 2, "boom"))
                        .accepted())
                .isTrue();
        assertThat(instance(id).state()).isEqualTo(RunState.FAILED);
        assertThat(dispatcher
                        .complete(new Completion("e1", item.ref(), true, null, 0, "second report"))
                        .accepted())
                .isFalse();
        assertThat(instance(id).state()).isEqualTo(RunState.FAILED);
        assertThat(instance(id).exitCode()).isEqualTo(2);
    }

    @Test
    void an_executor_restart_fails_the_runs_it_no_longer_has() throws Exception {
        node.tasks().create(task("job", event(), "true", Map.of("maxRetries", 0)), "test");
        long id = node.tasks().trigger("job", Map.of(), Cause.EVENT, "test");
        WorkItem held = claimOne("box");
        RegisterAnswer again =
                dispatcher.register(new Register("box", "box-s2", List.of("default"), "test", 2, "t", List.of()));
        assertThat(again.lost())
                .as("named, so the new life kills what of it still runs")
                .containsExactly(held.ref());
        RunRow run = instance(id);
        assertThat(run.state()).isEqualTo(RunState.FAILED);
        assertThat(run.failureKind()).isEqualTo(FailureKind.EXECUTOR_LOST);
    }

    @Test
    void a_failed_attempt_is_retried_by_policy_then_fails_for_good() throws Exception {
        node.tasks().create(task("job", event(), "exit 3", Map.of("maxRetries", 1, "retryIntervalSeconds", 0)), "test");
        long id = node.tasks().trigger("job", Map.of(), Cause.EVENT, "test");
        WorkItem a1 = claimOne("e1");
        dispatcher.complete(new Completion("e1", a1.ref(), false, FailureKind.EXIT_CODE, 3, null));
        assertThat(instance(id).state()).isEqualTo(RunState.RETRYING);
        await().atMost(Duration.ofSeconds(5)).until(() -> node.housekeeping().promoteRetries() == 1);
        WorkItem a2 = claimOne("e1");
        assertThat(a2.attempt()).isEqualTo(2);
        dispatcher.complete(new Completion("e1", a2.ref(), false, FailureKind.EXIT_CODE, 3, null));
        assertThat(instance(id).state()).isEqualTo(RunState.FAILED);
        assertThat(events(id))
                .extracting(EventRow::type)
                .containsSubsequence(
                        EventType.CREATED,
                        EventType.CLAIMED,
                        EventType.RETRY_SCHEDULED,
                        EventType.RETRY_READY,
                        EventType.CLAIMED,
                        EventType.FAILED);
    }
}
