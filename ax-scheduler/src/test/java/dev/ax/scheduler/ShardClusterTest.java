package dev.ax.scheduler;

import static dev.ax.scheduler.TestNodes.event;
import static dev.ax.scheduler.TestNodes.task;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ax.domain.protocol.Completion;
import dev.ax.domain.protocol.Poll;
import dev.ax.domain.protocol.Register;
import dev.ax.domain.protocol.WorkItem;
import dev.ax.domain.run.Cause;
import dev.ax.domain.run.RunState;
import dev.ax.store.DbConfig;
import dev.ax.store.RunRow;
import dev.ax.store.RunStore.RunFilter;
import dev.ax.store.ShardRow;
import dev.ax.store.Store;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Shards claimed concurrently by executors of two nodes on one database: each shard once, maxParallelShards held. */
abstract class ShardClusterTest {
    /** A fresh database the nodes share. */
    abstract DbConfig config();

    Store storeA;
    Store storeB;

    @BeforeEach
    void open() {
        DbConfig db = config();
        storeA = Store.open(db);
        storeB = Store.open(db);
    }

    @AfterEach
    void close() {
        storeA.close();
        storeB.close();
    }

    @Test
    void concurrent_claims_from_two_nodes_run_each_shard_once_and_respect_max_parallel_shards() throws Exception {
        SchedulerNode a = TestNodes.node(storeA, "node-a");
        SchedulerNode b = TestNodes.node(storeB, "node-b");
        a.tasks()
                .create(
                        task(
                                "fanned",
                                event(),
                                "true",
                                Map.of("overflow", "ALLOW", "sharding", Map.of("shards", 5, "maxParallelShards", 2))),
                        "test");
        int runs = 20;
        for (int i = 0; i < runs; i++) {
            a.tasks().trigger("fanned", Map.of(), Cause.EVENT, "test");
        }
        List<String> done = Collections.synchronizedList(new ArrayList<>());
        Map<Long, AtomicInteger> running = new ConcurrentHashMap<>();
        AtomicInteger maxSeen = new AtomicInteger();
        AtomicInteger failures = new AtomicInteger();
        AtomicInteger holders = new AtomicInteger();
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            Dispatcher d = (t % 2 == 0 ? a : b).dispatcher();
            String id = "claimer-" + t;
            d.register(
                    new Register(id, UUID.randomUUID().toString(), List.of("default"), "test", 1, "test", List.of()));
            threads.add(Thread.ofPlatform().start(() -> {
                try {
                    go.await();
                    int idle = 0;
                    while (done.size() < runs * 5 && idle < 2000) {
                        // A short long poll: the dispatcher wakes it when shards free up, no sleeping here.
                        List<WorkItem> items = d.poll(new Poll(id, List.of("default"), 3, 20));
                        if (items.isEmpty()) {
                            idle++;
                            continue;
                        }
                        for (WorkItem w : items) {
                            int now = running.computeIfAbsent(w.instanceId(), k -> new AtomicInteger())
                                    .incrementAndGet();
                            maxSeen.accumulateAndGet(now, Math::max);
                        }
                        // Hold the shards until another claimer holds some too (or briefly, if none comes): claims
                        // overlap.
                        holders.incrementAndGet();
                        try {
                            await().pollDelay(Duration.ZERO)
                                    .pollInterval(Duration.ofMillis(1))
                                    .atMost(Duration.ofMillis(50))
                                    .until(() -> holders.get() >= 2);
                        } catch (ConditionTimeoutException alone) {
                            // no other claimer had work at the same moment this time
                        } finally {
                            holders.decrementAndGet();
                        }
                        for (WorkItem w : items) {
                            running.get(w.instanceId()).decrementAndGet();
                            if (!d.complete(new Completion(id, w.ref(), true, null, 0, "ok"))
                                    .accepted()) {
                                failures.incrementAndGet();
                            }
                            done.add(w.instanceId() + "/" + w.shardIndex());
                        }
                    }
                } catch (Exception e) {
                    failures.incrementAndGet();
                }
            }));
        }
        go.countDown();
        for (Thread t : threads) {
            t.join(120_000);
        }

        assertThat(failures).hasValue(0);
        assertThat(done).hasSize(runs * 5).doesNotHaveDuplicates();
        assertThat(maxSeen.get()).isLessThanOrEqualTo(2);
        List<RunRow> all =
                storeA.tx(tx -> storeA.runs().list(tx, new RunFilter("fanned", null, null, null), Long.MAX_VALUE, 100));
        assertThat(all).hasSize(runs).allSatisfy(r -> {
            assertThat(r.state()).isEqualTo(RunState.SUCCESS);
            List<ShardRow> shards = storeA.tx(tx -> storeA.shards().ofRun(tx, r.id()));
            assertThat(shards).hasSize(5).extracting(ShardRow::attempt).containsOnly(1);
        });
        a.close();
        b.close();
    }
}
