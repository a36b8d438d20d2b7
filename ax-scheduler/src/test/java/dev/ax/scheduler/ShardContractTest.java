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
import dev.ax.domain.protocol.RunRef;
import dev.ax.domain.protocol.Started;
import dev.ax.domain.protocol.WorkItem;
import dev.ax.domain.run.Cause;
import dev.ax.domain.run.EventType;
import dev.ax.domain.run.FailureKind;
import dev.ax.domain.run.RunState;
import dev.ax.domain.run.ShardState;
import dev.ax.store.DbConfig;
import dev.ax.store.EventRow;
import dev.ax.store.RunRow;
import dev.ax.store.ShardRow;
import dev.ax.store.Store;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Sharded runs through the executor protocol, with executors played by the test (every report
 * made by hand, so each step is deterministic): fan-out, spreading, per-shard retries, the final
 * outcome and its per-shard picture, terminate, broadcast, maxParallelShards, lost leases.
 */
abstract class ShardContractTest {
    Store store;
    SchedulerNode node;
    Dispatcher dispatcher;

    abstract DbConfig config();

    @BeforeEach
    void open() {
        store = Store.open(config());
        node = TestNodes.node(store, "n1", Duration.ZERO, SchedulerConfig.DEFAULT.withLeaseMillis(1000));
        dispatcher = node.dispatcher();
    }

    @AfterEach
    void close() {
        node.close();
        store.close();
    }

    void register(String... executors) {
        for (String e : executors) {
            dispatcher.register(new Register(e, e + "-s1", List.of("default"), "test", 1, "t", List.of()));
        }
    }

    /** One claim attempt, no waiting. */
    List<WorkItem> poll(String executor, int max) throws InterruptedException {
        return dispatcher.poll(new Poll(executor, List.of("default"), max, 0));
    }

    /** Polls until the executor gets something (a retry due by the database's clock), awaited, not slept. */
    List<WorkItem> pollUntilSome(String executor) {
        AtomicReference<List<WorkItem>> got = new AtomicReference<>(List.of());
        await().atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(20))
                .until(() -> {
                    got.set(poll(executor, 4));
                    return !got.get().isEmpty();
                });
        return got.get();
    }

    void complete(String executor, WorkItem item, boolean success) {
        assertThat(dispatcher
                        .started(new Started(executor, item.ref(), 1000 + item.shardIndex()))
                        .accepted())
                .isTrue();
        assertThat(dispatcher
                        .log(new LogChunk(
                                executor,
                                item.ref(),
                                "stdout",
                                List.of("shard " + item.shardIndex() + " attempt " + item.attempt())))
                        .accepted())
                .isTrue();
        // The last line travels with the outcome, as an executor's completion carries what it had not shipped.
        List<LogChunk> tail = List.of(new LogChunk(
                executor,
                item.ref(),
                "stdout",
                List.of("end of shard " + item.shardIndex() + " attempt " + item.attempt())));
        Completion completion = new Completion(
                executor,
                item.ref(),
                success,
                success ? null : FailureKind.EXIT_CODE,
                success ? 0 : 1,
                success ? "exit 0" : "exit 1",
                tail);
        assertThat(dispatcher.complete(completion).accepted()).isTrue();
    }

    long trigger(String name, Map<String, Object> policy) {
        node.tasks().create(task(name, event(), "work", policy), "test");
        return node.tasks().trigger(name, Map.of(), Cause.EVENT, "test");
    }

    RunRow instance(long id) {
        return store.tx(tx -> store.runs().find(tx, id).orElseThrow());
    }

    List<ShardRow> shards(long id) {
        return store.tx(tx -> store.shards().ofRun(tx, id));
    }

    List<EventRow> events(long id) {
        return store.tx(tx -> store.events().forRun(tx, id, 0, 1000));
    }

    @Test
    void the_shards_of_a_task_with_an_environment_go_only_to_executors_carrying_its_labels() throws Exception {
        dispatcher.register(
                new Register("t1", "t1-s1", List.of("default"), "test", 1, "t", List.of(), List.of("test")));
        dispatcher.register(
                new Register("p1", "p1-s1", List.of("default"), "test", 1, "t", List.of(), List.of("prod")));
        Map<String, Object> def =
                new LinkedHashMap<>(task("prod_only", event(), "work", Map.of("sharding", Map.of("shards", 3))));
        def.put("environment", List.of("prod"));
        node.tasks().create(def, "test");
        long id = node.tasks().trigger("prod_only", Map.of(), Cause.EVENT, "test");

        List<WorkItem> taken = new ArrayList<>();
        for (int turn = 0; turn < 12; turn++) {
            assertThat(poll("t1", 4))
                    .as("the test-only executor gets nothing of a prod task")
                    .isEmpty();
            boolean readyForTest =
                    store.tx(tx -> store.shards().readyFor(tx, "t1", List.of("default"), List.of("test"), 0));
            assertThat(readyForTest).isFalse();
            taken.addAll(poll("p1", 4));
        }
        assertThat(taken).extracting(WorkItem::shardIndex).containsExactlyInAnyOrder(0, 1, 2);
        assertThat(shards(id)).allSatisfy(s -> assertThat(s.executorId()).isEqualTo("p1"));
    }

    @Test
    void a_failed_shard_retries_alone_and_the_run_succeeds_once_every_shard_has() throws Exception {
        register("a", "b");
        long id = trigger("four", Map.of("maxRetries", 2, "retryIntervalSeconds", 0, "sharding", Map.of("shards", 4)));

        // a and b take turns: one shard of the run per poll, and never a second while the other has fewer.
        Map<Integer, WorkItem> claimed = new LinkedHashMap<>();
        Map<Integer, String> holder = new HashMap<>();
        for (int turn = 0; claimed.size() < 4 && turn < 20; turn++) {
            String executor = turn % 2 == 0 ? "a" : "b";
            for (WorkItem item : poll(executor, 4)) {
                claimed.put(item.shardIndex(), item);
                holder.put(item.shardIndex(), executor);
            }
        }
        assertThat(claimed.keySet()).containsExactlyInAnyOrder(0, 1, 2, 3);
        assertThat(holder.values())
                .containsOnly("a", "b")
                .filteredOn("a"::equals)
                .hasSize(2);
        assertThat(claimed.values()).allSatisfy(item -> {
            assertThat(item.shardTotal()).isEqualTo(4);
            assertThat(item.attempt()).isEqualTo(1);
            assertThat(item.env())
                    .containsEntry("AX_SHARD_INDEX", Integer.toString(item.shardIndex()))
                    .containsEntry("AX_SHARD_TOTAL", "4");
        });
        assertThat(instance(id).state()).isEqualTo(RunState.RUNNING);

        Map<Integer, Integer> runs = new HashMap<>();
        for (WorkItem item : claimed.values()) {
            runs.merge(item.shardIndex(), 1, Integer::sum);
            complete(holder.get(item.shardIndex()), item, item.shardIndex() != 2);
        }
        // Shard 2 failed its first attempt; it fails its second too and succeeds on the third.
        for (int attempt = 2; attempt <= 3; attempt++) {
            // The retry is due 1 ms after the failure, by the database's clock.
            List<WorkItem> again = pollUntilSome(attempt % 2 == 0 ? "b" : "a");
            assertThat(again).singleElement().satisfies(item -> {
                assertThat(item.shardIndex()).isEqualTo(2);
            });
            WorkItem retry = again.getFirst();
            runs.merge(2, 1, Integer::sum);
            complete(attempt % 2 == 0 ? "b" : "a", retry, retry.attempt() == 3);
        }

        assertThat(runs).containsExactlyInAnyOrderEntriesOf(Map.of(0, 1, 1, 1, 2, 3, 3, 1));
        RunRow run = instance(id);
        assertThat(run.state()).isEqualTo(RunState.SUCCESS);
        assertThat(run.attempt()).isEqualTo(1);
        assertThat(shards(id)).extracting(ShardRow::state).containsOnly(ShardState.SUCCESS);
        assertThat(shards(id)).extracting(ShardRow::attempt).containsExactly(1, 1, 3, 1);

        List<EventRow> events = events(id);
        assertThat(events)
                .extracting(EventRow::type)
                .containsSubsequence(
                        EventType.CLAIMED,
                        EventType.SHARDED,
                        EventType.SHARD_CLAIMED,
                        EventType.SHARD_STARTED,
                        EventType.SHARD_RETRY_SCHEDULED,
                        EventType.SHARD_CLAIMED,
                        EventType.SHARD_RETRY_SCHEDULED,
                        EventType.SHARD_CLAIMED,
                        EventType.SHARD_SUCCEEDED,
                        EventType.SUCCEEDED);
        assertThat(events.stream()
                        .filter(e -> e.type() == EventType.SHARD_SUCCEEDED)
                        .map(e -> e.data().get("shard")))
                .containsExactlyInAnyOrder(0, 1, 2, 3);
        assertThat(events.stream()
                        .filter(e -> e.type() == EventType.SHARD_RETRY_SCHEDULED)
                        .map(e -> e.data().get("shard")))
                .containsExactly(2, 2);
        EventRow last = events.getLast();
        assertThat(last.type()).isEqualTo(EventType.SUCCEEDED);
        assertThat(last.data().get("shards")).asList().hasSize(4);
        List<String> shard2Log = store.tx(tx -> store.logs().read(tx, id, 2, 0, 100)).stream()
                .map(l -> l.text())
                .toList();
        assertThat(shard2Log)
                .containsExactly(
                        "shard 2 attempt 1",
                        "end of shard 2 attempt 1",
                        "shard 2 attempt 2",
                        "end of shard 2 attempt 2",
                        "shard 2 attempt 3",
                        "end of shard 2 attempt 3");
    }

    @Test
    void a_shard_out_of_retries_fails_the_run_with_a_per_shard_picture_and_stops_the_others() throws Exception {
        register("a", "b");
        long id = trigger("three", Map.of("maxRetries", 1, "retryIntervalSeconds", 0, "sharding", Map.of("shards", 3)));
        List<WorkItem> items = new ArrayList<>();
        Map<Integer, String> holder = new HashMap<>();
        for (int turn = 0; items.size() < 3 && turn < 20; turn++) {
            String executor = turn % 2 == 0 ? "a" : "b";
            for (WorkItem item : poll(executor, 4)) {
                items.add(item);
                holder.put(item.shardIndex(), executor);
            }
        }
        assertThat(items).hasSize(3);
        WorkItem s0 =
                items.stream().filter(i -> i.shardIndex() == 0).findFirst().orElseThrow();
        WorkItem s1 =
                items.stream().filter(i -> i.shardIndex() == 1).findFirst().orElseThrow();
        WorkItem s2 =
                items.stream().filter(i -> i.shardIndex() == 2).findFirst().orElseThrow();
        complete(holder.get(0), s0, true);
        complete(holder.get(1), s1, false);
        List<WorkItem> again = pollUntilSome(holder.get(1));
        assertThat(again).singleElement().extracting(WorkItem::shardIndex).isEqualTo(1);
        complete(holder.get(1), again.getFirst(), false);

        RunRow run = instance(id);
        assertThat(run.state()).isEqualTo(RunState.FAILED);
        assertThat(run.message())
                .contains("shard 1/3 failed after 2 attempts")
                .contains("shard 0 SUCCESS")
                .contains("shard 1 FAILED (2 attempts)")
                .contains("shard 2 STOPPED");
        assertThat(shards(id))
                .extracting(ShardRow::state)
                .containsExactly(ShardState.SUCCESS, ShardState.FAILED, ShardState.STOPPED);
        EventRow failed = events(id).stream()
                .filter(e -> e.type() == EventType.FAILED)
                .findFirst()
                .orElseThrow();
        assertThat(failed.to()).isEqualTo(RunState.FAILED);
        assertThat(failed.data()).containsEntry("failedShard", 1);
        assertThat(failed.data().get("shards")).asList().hasSize(3);
        // The executor still running shard 2 learns at its next heartbeat that it must stop; its report is refused.
        HeartbeatAnswer answer = dispatcher.heartbeat(new Heartbeat(holder.get(2), "s", List.of(s2.ref())));
        assertThat(answer.abandon()).containsExactly(s2.ref());
        assertThat(dispatcher
                        .complete(new Completion(holder.get(2), s2.ref(), true, null, 0, "late"))
                        .accepted())
                .isFalse();
        assertThat(instance(id).state()).isEqualTo(RunState.FAILED);
    }

    @Test
    void terminate_reaches_every_shard() throws Exception {
        register("a", "b");
        long id = trigger("two", Map.of("sharding", Map.of("shards", 3)));
        List<WorkItem> items = new ArrayList<>();
        items.addAll(poll("a", 4));
        items.addAll(poll("b", 4));
        assertThat(items).hasSize(2); // one shard per poll

        node.runs().terminate(id, "ops", "wrong day");

        assertThat(instance(id).state()).isEqualTo(RunState.TERMINATED);
        assertThat(shards(id)).extracting(ShardRow::state).containsOnly(ShardState.STOPPED);
        assertThat(dispatcher
                        .heartbeat(new Heartbeat("a", "s", List.of(items.get(0).ref())))
                        .abandon())
                .containsExactly(items.get(0).ref());
        assertThat(dispatcher
                        .heartbeat(new Heartbeat("b", "s", List.of(items.get(1).ref())))
                        .abandon())
                .containsExactly(items.get(1).ref());
        assertThat(poll("a", 4)).isEmpty();
        assertThat(events(id))
                .filteredOn(e -> e.type() == EventType.SHARD_STOPPED)
                .hasSize(3);
    }

    @Test
    void broadcast_makes_one_shard_per_live_executor_of_the_group() throws Exception {
        register("a", "b");
        long id = trigger("everyone", Map.of("sharding", Map.of("mode", "broadcast")));
        List<WorkItem> a = poll("a", 4);
        List<WorkItem> b = poll("b", 4);

        assertThat(shards(id)).hasSize(2);
        assertThat(a)
                .singleElement()
                .satisfies(item -> assertThat(item.shardTotal()).isEqualTo(2));
        assertThat(b)
                .singleElement()
                .satisfies(item ->
                        assertThat(item.shardIndex()).isNotEqualTo(a.getFirst().shardIndex()));
        EventRow sharded = events(id).stream()
                .filter(e -> e.type() == EventType.SHARDED)
                .findFirst()
                .orElseThrow();
        assertThat(sharded.data())
                .containsEntry("shards", 2)
                .containsEntry("mode", "broadcast")
                .containsEntry("liveExecutors", 2);
    }

    @Test
    void max_parallel_shards_one_never_runs_two_shards_at_once() throws Exception {
        register("a", "b");
        long id = trigger("serial", Map.of("sharding", Map.of("shards", 3, "maxParallelShards", 1)));
        List<Integer> order = new ArrayList<>();
        for (int round = 0; round < 3; round++) {
            List<WorkItem> got = new ArrayList<>();
            for (int i = 0; i < 50 && got.isEmpty(); i++) {
                got.addAll(poll("a", 4));
                got.addAll(poll("b", 4));
                assertThat(got).hasSizeLessThanOrEqualTo(1);
            }
            assertThat(shards(id))
                    .filteredOn(s -> s.state() == ShardState.RUNNING)
                    .hasSize(1);
            assertThat(poll("a", 4)).isEmpty();
            assertThat(poll("b", 4)).isEmpty();
            WorkItem item = got.getFirst();
            order.add(item.shardIndex());
            complete(
                    store.tx(tx -> store.shards()
                                    .find(tx, id, item.shardIndex())
                                    .orElseThrow())
                            .executorId(),
                    item,
                    true);
        }
        assertThat(order).containsExactly(0, 1, 2);
        assertThat(instance(id).state()).isEqualTo(RunState.SUCCESS);
    }

    @Test
    void a_lost_shard_lease_retries_only_that_shard() throws Exception {
        register("a", "b");
        long id = trigger("lossy", Map.of("maxRetries", 1, "retryIntervalSeconds", 0, "sharding", Map.of("shards", 2)));
        WorkItem onA = poll("a", 4).getFirst();
        WorkItem onB = poll("b", 4).getFirst();
        complete("a", onA, true);
        // b never heartbeats: its shard's lease expires; only that shard is retried.
        await().atMost(Duration.ofSeconds(15)).until(() -> {
            node.housekeeping().tick();
            return shards(id).get(onB.shardIndex()).state() == ShardState.RETRYING;
        });
        List<WorkItem> again = pollUntilSome("a");
        assertThat(again).singleElement().satisfies(item -> {
            assertThat(item.shardIndex()).isEqualTo(onB.shardIndex());
            assertThat(item.attempt()).isEqualTo(2);
        });
        assertThat(dispatcher
                        .complete(new Completion("b", onB.ref(), true, null, 0, "too late"))
                        .accepted())
                .isFalse();
        complete("a", again.getFirst(), true);
        assertThat(instance(id).state()).isEqualTo(RunState.SUCCESS);
        assertThat(shards(id)).extracting(ShardRow::attempt).containsExactlyInAnyOrder(1, 2);
        assertThat(events(id)).extracting(EventRow::type).contains(EventType.SHARD_LOST);
        assertThat(onA.ref()).isEqualTo(new RunRef(id, 1, onA.shardIndex()));
    }

    @Test
    void a_waiting_poll_sees_only_shards_it_could_get_so_a_turned_away_executor_does_not_spin() throws Exception {
        register("a", "b");
        long limited = trigger("limited", Map.of("sharding", Map.of("shards", 2, "maxParallelShards", 1)));
        WorkItem first = poll("a", 4).getFirst();
        // maxParallelShards reached: nobody could get the second shard, so a waiting poll keeps waiting.
        assertThat(readyFor("a")).isFalse();
        assertThat(readyFor("b")).isFalse();
        complete("a", first, true);
        assertThat(readyFor("b")).isTrue();
        poll("b", 4).forEach(item -> complete("b", item, true));
        assertThat(instance(limited).state()).isEqualTo(RunState.SUCCESS);

        long spread = trigger("spread", Map.of("sharding", Map.of("shards", 3)));
        assertThat(poll("a", 4)).hasSize(1);
        // a already runs a shard of the run and b none: b should take the next one, a waits (for up to the spread
        // grace).
        assertThat(readyFor("a")).isFalse();
        assertThat(readyFor("b")).isTrue();
        assertThat(shards(spread)).hasSize(3);
    }

    boolean readyFor(String executor) {
        return store.tx(
                tx -> store.shards().readyFor(tx, executor, List.of("default"), List.of(), Shards.SPREAD_GRACE_MILLIS));
    }
}
