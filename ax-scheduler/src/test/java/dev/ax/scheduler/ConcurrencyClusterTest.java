package dev.ax.scheduler;

import static dev.ax.scheduler.TestNodes.cron;
import static dev.ax.scheduler.TestNodes.event;
import static dev.ax.scheduler.TestNodes.task;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ax.domain.protocol.Completion;
import dev.ax.domain.protocol.Heartbeat;
import dev.ax.domain.protocol.Poll;
import dev.ax.domain.protocol.Register;
import dev.ax.domain.protocol.WorkItem;
import dev.ax.domain.run.Cause;
import dev.ax.domain.run.EventType;
import dev.ax.domain.run.RunState;
import dev.ax.store.DbConfig;
import dev.ax.store.EventRow;
import dev.ax.store.RunRow;
import dev.ax.store.RunStore.RunFilter;
import dev.ax.store.Store;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Invariant 6 on two nodes sharing one database: a job that takes longer than its schedule
 * never runs more than {@code maxConcurrency} at once, and the overflow policy decides the rest.
 */
abstract class ConcurrencyClusterTest {
    /** A fresh database the nodes share. */
    abstract DbConfig config();

    Store storeA;
    Store storeB;
    SchedulerNode a;
    SchedulerNode b;

    @BeforeEach
    void open() {
        DbConfig db = config();
        storeA = Store.open(db);
        storeB = Store.open(db);
        a = TestNodes.node(storeA, "node-a");
        b = TestNodes.node(storeB, "node-b");
    }

    @AfterEach
    void close() {
        a.close();
        b.close();
        storeA.close();
        storeB.close();
    }

    /** An executor whose every run takes {@code runMillis}: claims through both nodes' dispatchers. */
    static final class SlowExecutor implements AutoCloseable {
        final AtomicBoolean running = new AtomicBoolean(true);
        final ScheduledExecutorService finisher = Executors.newScheduledThreadPool(4);
        final Thread poller;

        SlowExecutor(Dispatcher d, String id, long runMillis) {
            d.register(new Register(id, UUID.randomUUID().toString(), List.of("default"), "test", 1, "t", List.of()));
            poller = Thread.ofPlatform().daemon(true).start(() -> {
                while (running.get()) {
                    try {
                        for (WorkItem item : d.poll(new Poll(id, List.of("default"), 10, 200))) {
                            finisher.schedule(
                                    () -> d.complete(new Completion(id, item.ref(), true, null, 0, "done")),
                                    runMillis,
                                    TimeUnit.MILLISECONDS);
                        }
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            });
        }

        @Override
        public void close() throws InterruptedException {
            running.set(false);
            poller.interrupt();
            poller.join(5000);
            finisher.shutdownNow();
        }
    }

    List<RunRow> runs(String task) {
        return storeA
                .tx(tx -> storeA.runs().list(tx, new RunFilter(task, null, null, null), Long.MAX_VALUE, 1000))
                .stream()
                .sorted(Comparator.comparing(RunRow::id))
                .toList();
    }

    List<EventRow> events(long id) {
        return storeA.tx(tx -> storeA.events().forRun(tx, id, 0, 100));
    }

    static void assertNoTwoRanAtOnce(List<RunRow> runs) {
        List<RunRow> ran = runs.stream()
                .filter(r -> r.startedAt() != null && r.finishedAt() != null)
                .sorted(Comparator.comparing(RunRow::startedAt))
                .toList();
        for (int i = 1; i < ran.size(); i++) {
            assertThat(ran.get(i).startedAt())
                    .as(
                            "run %d started before run %d finished",
                            ran.get(i).id(), ran.get(i - 1).id())
                    .isAfterOrEqualTo(ran.get(i - 1).finishedAt());
        }
    }

    @Test
    void queue_runs_a_3s_job_on_a_1s_schedule_one_at_a_time_in_slot_order() throws Exception {
        a.tasks().create(task("slow", cron("* * * * * *"), "true", Map.of("overflow", "QUEUE")), "test");
        a.start();
        b.start();
        try (var e1 = new SlowExecutor(a.dispatcher(), "e1", 3000);
                var e2 = new SlowExecutor(b.dispatcher(), "e2", 3000)) {
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> runs("slow").stream()
                                    .filter(r -> r.state() == RunState.SUCCESS)
                                    .count()
                            >= 3);
            a.tasks().setPaused("slow", true, "test");
            List<RunRow> snapshot = runs("slow");
            assertThat(snapshot.stream().filter(r -> r.state() == RunState.BLOCKED))
                    .isNotEmpty();
            assertThat(snapshot.stream().filter(r -> r.state() == RunState.RUNNING || r.state() == RunState.READY))
                    .hasSizeLessThanOrEqualTo(1);
        }
        List<RunRow> all = runs("slow");
        assertNoTwoRanAtOnce(all);
        List<RunRow> started = all.stream()
                .filter(r -> r.startedAt() != null)
                .sorted(Comparator.comparing(RunRow::startedAt))
                .toList();
        assertThat(started).extracting(RunRow::scheduledAt).isSorted();
        assertThat(a.loopErrors() + b.loopErrors()).isZero();
    }

    @Test
    void skip_drops_the_slots_that_find_a_3s_job_busy_and_records_each() throws Exception {
        a.tasks().create(task("slow", cron("* * * * * *"), "true", Map.of("overflow", "SKIP")), "test");
        a.start();
        b.start();
        try (var e1 = new SlowExecutor(a.dispatcher(), "e1", 3000);
                var e2 = new SlowExecutor(b.dispatcher(), "e2", 3000)) {
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> runs("slow").stream()
                                    .filter(r -> r.state() == RunState.SUCCESS)
                                    .count()
                            >= 2);
        }
        a.tasks().setPaused("slow", true, "test");
        List<RunRow> all = runs("slow");
        assertNoTwoRanAtOnce(all);
        List<RunRow> skipped =
                all.stream().filter(r -> r.state() == RunState.SKIPPED).toList();
        assertThat(skipped).isNotEmpty();
        assertThat(skipped)
                .allSatisfy(r ->
                        assertThat(events(r.id())).extracting(EventRow::type).contains(EventType.OVERLAP_SKIPPED));
        assertThat(all.stream().filter(r -> r.state() == RunState.BLOCKED)).isEmpty();
    }

    @Test
    void queue_one_keeps_only_the_newest_waiting_run() throws Exception {
        a.tasks().create(task("job", event(), "true", Map.of("overflow", "QUEUE_ONE")), "test");
        long first = a.tasks().trigger("job", Map.of(), Cause.EVENT, "test");
        long second = b.tasks().trigger("job", Map.of(), Cause.EVENT, "test");
        long third = a.tasks().trigger("job", Map.of(), Cause.EVENT, "test");
        assertThat(state(first)).isEqualTo(RunState.READY);
        assertThat(state(second)).isEqualTo(RunState.SKIPPED);
        assertThat(events(second)).extracting(EventRow::type).contains(EventType.QUEUE_DROPPED);
        assertThat(state(third)).isEqualTo(RunState.BLOCKED);
    }

    @Test
    void triggers_of_an_unlimited_task_run_side_by_side_and_a_limit_added_later_holds_at_once() throws Exception {
        a.tasks().create(task("job", event(), "true", Map.of("overflow", "ALLOW")), "test");
        a.tasks()
                .trigger(
                        "job",
                        Map.of(),
                        Cause.EVENT,
                        "test"); // the first trigger learns the task needs no exclusive lock
        b.tasks().trigger("job", Map.of(), Cause.EVENT, "test");
        try (var threads = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<Long>> ids = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                SchedulerNode node = i % 2 == 0 ? a : b;
                ids.add(threads.submit(() -> node.tasks().trigger("job", Map.of(), Cause.EVENT, "test")));
            }
            for (var id : ids) {
                assertThat(state(id.get())).isEqualTo(RunState.READY);
            }
        }
        // Edited to one at a time: the nodes' guess (shared lock) is wrong now, found under the lock, and corrected.
        a.tasks().update("job", task("job", event(), "true", Map.of("overflow", "SKIP")), "test");
        long skipped = b.tasks().trigger("job", Map.of(), Cause.EVENT, "test");
        assertThat(state(skipped)).isEqualTo(RunState.SKIPPED);
    }

    @Test
    void a_queue_limit_drops_the_newcomer_when_full() {
        a.tasks().create(task("job", event(), "true", Map.of("overflow", "QUEUE", "queueLimit", 1)), "test");
        long running = a.tasks().trigger("job", Map.of(), Cause.EVENT, "test");
        long waiting = a.tasks().trigger("job", Map.of(), Cause.EVENT, "test");
        long dropped = b.tasks().trigger("job", Map.of(), Cause.EVENT, "test");
        assertThat(List.of(state(running), state(waiting), state(dropped)))
                .containsExactly(RunState.READY, RunState.BLOCKED, RunState.SKIPPED);
        assertThat(events(dropped)).extracting(EventRow::type).contains(EventType.QUEUE_DROPPED);
    }

    @Test
    void replace_terminates_the_running_run_and_its_executor_is_told_to_stop() throws Exception {
        a.tasks().create(task("job", event(), "true", Map.of("overflow", "REPLACE")), "test");
        long old = a.tasks().trigger("job", Map.of(), Cause.EVENT, "test");
        a.dispatcher().register(new Register("e1", "s1", List.of("default"), "test", 1, "t", List.of()));
        List<WorkItem> claimed = a.dispatcher().poll(new Poll("e1", List.of("default"), 1, 1000));
        assertThat(claimed).singleElement().extracting(WorkItem::instanceId).isEqualTo(old);
        long fresh = b.tasks().trigger("job", Map.of(), Cause.EVENT, "test");
        assertThat(state(old)).isEqualTo(RunState.TERMINATED);
        assertThat(state(fresh)).isEqualTo(RunState.READY);
        var answer = a.dispatcher()
                .heartbeat(new Heartbeat("e1", "s1", List.of(claimed.getFirst().ref())));
        assertThat(answer.abandon()).containsExactly(claimed.getFirst().ref());
        assertThat(a.dispatcher()
                        .complete(new Completion("e1", claimed.getFirst().ref(), true, null, 0, "late"))
                        .accepted())
                .isFalse();
    }

    @Test
    void a_finished_run_hands_its_slot_to_the_oldest_waiting_one() throws Exception {
        a.tasks().create(task("job", event(), "true", null), "test");
        long first = a.tasks().trigger("job", Map.of(), Cause.EVENT, "test");
        long second = a.tasks().trigger("job", Map.of(), Cause.EVENT, "test");
        long third = b.tasks().trigger("job", Map.of(), Cause.EVENT, "test");
        a.dispatcher().register(new Register("e1", "s1", List.of("default"), "test", 1, "t", List.of()));
        WorkItem w =
                a.dispatcher().poll(new Poll("e1", List.of("default"), 5, 1000)).getFirst();
        assertThat(w.instanceId()).isEqualTo(first);
        assertThat(a.dispatcher()
                        .complete(new Completion("e1", w.ref(), true, null, 0, "ok"))
                        .accepted())
                .isTrue();
        assertThat(state(second)).isEqualTo(RunState.READY);
        assertThat(state(third)).isEqualTo(RunState.BLOCKED);
        assertThat(events(second)).extracting(EventRow::type).contains(EventType.UNBLOCKED);
    }

    RunState state(long id) {
        return storeA.tx(tx -> storeA.runs().find(tx, id).orElseThrow()).state();
    }
}
