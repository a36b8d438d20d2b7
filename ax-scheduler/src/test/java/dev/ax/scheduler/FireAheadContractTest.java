package dev.ax.scheduler;

import static dev.ax.scheduler.TestNodes.cron;
import static dev.ax.scheduler.TestNodes.task;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.domain.protocol.Poll;
import dev.ax.domain.protocol.Register;
import dev.ax.domain.protocol.WorkItem;
import dev.ax.domain.run.EventType;
import dev.ax.domain.run.RunState;
import dev.ax.store.DbConfig;
import dev.ax.store.EventRow;
import dev.ax.store.RunRow;
import dev.ax.store.RunStore.RunFilter;
import dev.ax.store.Store;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Runs of a task whose admission cannot change with time ({@code overflow: ALLOW}) are created
 * before their slot and wait READY for it: they start on time, never early, and an edit or a
 * pause before the slot still decides what the slot does.
 */
abstract class FireAheadContractTest {
    /** Far more than the firing takes, so the runs fired ahead are still ahead when the test looks. */
    static final Duration AHEAD = Duration.ofSeconds(10);
    /** How far ahead a run must still be for an edit or a pause made right after to come before its slot. */
    static final Duration STILL_AHEAD = Duration.ofSeconds(4);

    Store store;
    SchedulerNode node;

    abstract DbConfig config();

    @BeforeEach
    void open() {
        store = Store.open(config());
        node = TestNodes.node(store, "n1", Duration.ZERO, SchedulerConfig.DEFAULT.withFireAhead(AHEAD));
    }

    @AfterEach
    void close() {
        node.close();
        store.close();
    }

    List<RunRow> runs(String task) {
        return store.tx(tx -> store.runs().list(tx, new RunFilter(task, null, null, null), Long.MAX_VALUE, 1000));
    }

    List<RunRow> ahead(String task) {
        return ahead(task, Duration.ZERO);
    }

    /** The runs whose slot is more than {@code margin} after now. */
    List<RunRow> ahead(String task, Duration margin) {
        Instant now = store.tx(tx -> tx.now());
        return runs(task).stream()
                .filter(r -> r.scheduledAt().isAfter(now.plus(margin)))
                .toList();
    }

    @Test
    void runs_of_an_unlimited_task_are_created_ahead_and_start_at_their_slot_never_before() throws Exception {
        node.tasks().create(task("pulse", cron("*/2 * * * * *"), "true", Map.of("overflow", "ALLOW")), "test");
        node.firing().tick();
        List<RunRow> ahead = ahead("pulse");
        assertThat(ahead).hasSizeGreaterThanOrEqualTo(3).allSatisfy(r -> {
            assertThat(r.state()).isEqualTo(RunState.READY);
            assertThat(r.readyAt()).isEqualTo(r.scheduledAt());
        });
        // A second tick fires nothing again: the slots are taken, the task's next slot is past the lookahead.
        int before = runs("pulse").size();
        node.firing().tick();
        assertThat(runs("pulse").size()).isLessThanOrEqualTo(before + 1);

        node.dispatcher().register(new Register("e1", "s1", List.of("default"), "test", 1, "t", List.of()));
        long first = ahead.getFirst().id();
        List<WorkItem> claimed = new ArrayList<>();
        while (claimed.stream().noneMatch(w -> w.instanceId() == first)) {
            claimed.addAll(node.dispatcher().poll(new Poll("e1", List.of("default"), 10, 5_000)));
        }
        for (WorkItem w : claimed) {
            RunRow r = store.tx(tx -> store.runs().find(tx, w.instanceId()).orElseThrow());
            assertThat(r.startedAt())
                    .as("run %d claimed before its slot", r.id())
                    .isAfterOrEqualTo(r.scheduledAt());
        }
    }

    /** Instant of the database's clock. */
    Instant dbNow() {
        return store.tx(tx -> tx.now());
    }

    /**
     * A node that claims up to 3 s ahead, a task fired ahead, executor e1 registered, and one run whose slot
     * ({@code ready_at}) is moved to 1.5 s from now by the database's clock: within the claim-ahead, with no sleep to
     * wait for a slot of the cron. Every other READY run of the task is moved a minute away, out of the way.
     */
    RunRow runFiredAheadWithinClaimAhead() {
        node.close();
        node = TestNodes.node(
                store,
                "n1",
                Duration.ZERO,
                SchedulerConfig.DEFAULT.withFireAhead(AHEAD).withClaimAhead(Duration.ofSeconds(3)));
        node.tasks().create(task("pulse", cron("*/5 * * * * *"), "true", Map.of("overflow", "ALLOW")), "test");
        node.firing().tick();
        node.dispatcher().register(new Register("e1", "s1", List.of("default"), "test", 1, "t", List.of()));
        long target = ahead("pulse").getFirst().id();
        Instant now = dbNow();
        store.tx(tx -> tx.update(
                "UPDATE ax_instance SET ready_at = CASE WHEN id = ? THEN ? ELSE ? END WHERE state = 'READY'",
                target,
                now.plusMillis(1_500),
                now.plusSeconds(60)));
        return store.tx(tx -> store.runs().find(tx, target).orElseThrow());
    }

    @Test
    void a_poll_shortly_before_a_slot_claims_its_runs_and_hands_them_out_at_the_slot_by_the_database_clock()
            throws Exception {
        RunRow target = runFiredAheadWithinClaimAhead();
        Instant slot = target.readyAt();

        // A poll whose wait ends before the slot leaves the slot's runs alone.
        List<WorkItem> early = node.dispatcher().poll(new Poll("e1", List.of("default"), 10, 200));
        assertThat(early).noneMatch(w -> w.instanceId() == target.id());
        assertThat(store.tx(tx -> store.runs().find(tx, target.id()).orElseThrow())
                        .state())
                .isEqualTo(RunState.READY);

        // One whose wait lasts past the slot claims them now and answers at the slot, not before.
        List<WorkItem> got;
        Instant answeredAt;
        do {
            got = node.dispatcher().poll(new Poll("e1", List.of("default"), 10, 5_000));
            answeredAt = dbNow();
        } while (got.stream().noneMatch(w -> w.instanceId() == target.id()));
        assertThat(answeredAt)
                .as("answered at the slot by the database's clock")
                .isAfterOrEqualTo(slot);
        assertThat(answeredAt).as("not after the next slot").isBefore(slot.plusSeconds(5));
        RunRow run = store.tx(tx -> store.runs().find(tx, target.id()).orElseThrow());
        assertThat(run.state()).isEqualTo(RunState.RUNNING);
        assertThat(run.startedAt()).isEqualTo(slot);
        List<EventRow> events = store.tx(tx -> store.events().forRun(tx, target.id(), 0, 10));
        assertThat(events)
                .filteredOn(e -> e.type() == EventType.CLAIMED)
                .singleElement()
                .satisfies(e -> assertThat(e.at())
                        .as("told when handed out: at the slot")
                        .isEqualTo(slot));
    }

    @Test
    void runs_claimed_ahead_are_handed_out_at_their_slot_even_when_the_waiting_poll_is_interrupted() throws Exception {
        RunRow target = runFiredAheadWithinClaimAhead();
        Instant slot = target.readyAt();

        AtomicReference<List<WorkItem>> got = new AtomicReference<>();
        AtomicReference<Instant> answeredAt = new AtomicReference<>();
        AtomicBoolean interruptKept = new AtomicBoolean();
        Thread poller = Thread.ofPlatform().start(() -> {
            try {
                got.set(node.dispatcher().poll(new Poll("e1", List.of("default"), 10, 5_000)));
                answeredAt.set(dbNow());
                interruptKept.set(Thread.currentThread().isInterrupted());
            } catch (InterruptedException e) {
                got.set(List.of());
            }
        });
        // Interrupted while it holds the runs it claimed ahead.
        Awaitility.await()
                .atMost(Duration.ofSeconds(5))
                .until(() -> store.tx(tx -> store.runs().find(tx, target.id()).orElseThrow())
                                .state()
                        == RunState.RUNNING);
        poller.interrupt();
        poller.join(10_000);

        assertThat(got.get()).extracting(WorkItem::instanceId).contains(target.id());
        assertThat(answeredAt.get())
                .as("handed out at the slot, not when interrupted")
                .isAfterOrEqualTo(slot);
        assertThat(interruptKept).as("the interrupt is kept for the caller").isTrue();
    }

    @Test
    void a_task_with_a_concurrency_limit_is_fired_at_its_slot_not_ahead() {
        node.tasks().create(task("one_at_a_time", cron("*/2 * * * * *"), "true", Map.of("overflow", "SKIP")), "test");
        node.firing().tick();
        assertThat(ahead("one_at_a_time")).isEmpty();
    }

    @Test
    void pausing_before_the_slot_cancels_the_runs_fired_ahead_each_with_the_reason() {
        node.tasks().create(task("pulse", cron("*/2 * * * * *"), "true", Map.of("overflow", "ALLOW")), "test");
        node.firing().tick();
        List<RunRow> ahead = ahead("pulse", STILL_AHEAD);
        assertThat(ahead).isNotEmpty();

        node.tasks().setPaused("pulse", true, "ops");

        for (RunRow r : ahead) {
            RunRow now = store.tx(tx -> store.runs().find(tx, r.id()).orElseThrow());
            assertThat(now.state()).isEqualTo(RunState.CANCELED);
            List<EventRow> events = store.tx(tx -> store.events().forRun(tx, r.id(), 0, 10));
            assertThat(events.getLast().type()).isEqualTo(EventType.CANCELED);
            assertThat(events.getLast().message()).contains("task paused before its slot");
            assertThat(now.message())
                    .as("the run itself says why")
                    .contains("canceled by ops: task paused before its slot");
        }
        EventRow paused =
                store.tx(tx -> store.events().forTask(tx, ahead.getFirst().taskId(), Long.MAX_VALUE, 10)).stream()
                        .filter(e -> e.type() == EventType.TASK_PAUSED)
                        .findFirst()
                        .orElseThrow();
        assertThat(paused.message())
                .contains(ahead.size() == 1 ? "canceled run " : "canceled runs ")
                .contains("created ahead of")
                .contains(ahead.stream().map(r -> String.valueOf(r.id())).toList());
    }

    @Test
    void an_edit_before_the_slot_is_what_the_slot_runs() {
        node.tasks().create(task("pulse", cron("*/2 * * * * *"), "echo v1", Map.of("overflow", "ALLOW")), "test");
        node.firing().tick();
        List<RunRow> ahead = ahead("pulse", STILL_AHEAD);
        assertThat(ahead).isNotEmpty();

        int v2 = node.tasks()
                .update("pulse", task("pulse", cron("*/2 * * * * *"), "echo v2", Map.of("overflow", "ALLOW")), "ops")
                .task()
                .version();
        for (RunRow r : ahead) {
            RunRow now = store.tx(tx -> store.runs().find(tx, r.id()).orElseThrow());
            assertThat(now.state()).isEqualTo(RunState.READY);
            assertThat(now.taskVersion()).isEqualTo(v2);
        }

        // Now one at a time: whether a slot runs is decided at the slot, so the runs fired ahead are canceled.
        node.tasks()
                .update("pulse", task("pulse", cron("*/2 * * * * *"), "echo v3", Map.of("overflow", "SKIP")), "ops");
        for (RunRow r : ahead) {
            RunRow now = store.tx(tx -> store.runs().find(tx, r.id()).orElseThrow());
            assertThat(now.state()).isEqualTo(RunState.CANCELED);
        }
        assertThat(ahead("pulse")).allSatisfy(r -> assertThat(r.state()).isNotEqualTo(RunState.READY));
    }
}
