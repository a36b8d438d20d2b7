package dev.ax.scheduler;

import static dev.ax.scheduler.TestNodes.cron;
import static dev.ax.scheduler.TestNodes.event;
import static dev.ax.scheduler.TestNodes.task;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ax.domain.protocol.Poll;
import dev.ax.domain.protocol.Register;
import dev.ax.domain.protocol.WorkItem;
import dev.ax.domain.run.Cause;
import dev.ax.store.DbConfig;
import dev.ax.store.RunRow;
import dev.ax.store.RunStore.RunFilter;
import dev.ax.store.Store;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Two scheduler nodes on one database: no duplicate, no missed slot, no early fire, whatever their clocks say. */
abstract class FiringClusterTest {
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
    void two_nodes_with_clocks_15s_apart_fire_each_slot_exactly_once_and_never_early() throws Exception {
        SchedulerNode fast = TestNodes.node(storeA, "node-ahead", Duration.ofSeconds(15), SchedulerConfig.DEFAULT);
        SchedulerNode slow = TestNodes.node(storeB, "node-behind", Duration.ofSeconds(-15), SchedulerConfig.DEFAULT);
        try (fast;
                slow) {
            fast.tasks().create(task("every_second", cron("* * * * * *"), "true", null), "test");
            // Its runs are written together with the rest of a firing batch's (overflow ALLOW): the same invariants.
            fast.tasks()
                    .create(
                            task("every_second_unlimited", cron("* * * * * *"), "true", Map.of("overflow", "ALLOW")),
                            "test");
            fast.start();
            slow.start();
            try (var e1 = new TestNodes.FastExecutor(fast.dispatcher(), "exec-a");
                    var e2 = new TestNodes.FastExecutor(slow.dispatcher(), "exec-b")) {
                await().atMost(Duration.ofSeconds(20)).until(() -> e1.completed() + e2.completed() >= 6);
                assertThat(e1.errors() + e2.errors()).isZero();
            }
            fast.close();
            slow.close();
            for (String name : List.of("every_second", "every_second_unlimited")) {
                List<RunRow> runs = storeA.tx(
                        tx -> storeA.runs().list(tx, new RunFilter(name, null, null, null), Long.MAX_VALUE, 10_000));
                FiringContractTest.assertOneInstancePerConsecutiveSecond(runs);
                // Never early, by the database's clock: no run starts before its slot. A limited task's run is not even
                // created before it; an unlimited one's may be (fired ahead), waiting READY for its slot.
                assertThat(runs).allSatisfy(r -> {
                    assertThat(r.readyAt()).isEqualTo(r.scheduledAt());
                    if (r.startedAt() != null) {
                        assertThat(r.startedAt()).isAfterOrEqualTo(r.scheduledAt());
                    }
                    if (name.equals("every_second")) {
                        assertThat(r.createdAt()).isAfterOrEqualTo(r.scheduledAt());
                    }
                });
                assertThat(runs.stream().map(RunRow::nodeId).distinct()).isNotEmpty();
            }
            assertThat(fast.loopErrors() + slow.loopErrors()).isZero();
        }
    }

    @Test
    void concurrent_claims_from_two_nodes_take_each_run_once() throws Exception {
        SchedulerNode a = TestNodes.node(storeA, "node-a");
        SchedulerNode b = TestNodes.node(storeB, "node-b");
        a.tasks().create(task("burst", event(), "true", Map.of("overflow", "ALLOW")), "test");
        for (int i = 0; i < 300; i++) {
            a.tasks().trigger("burst", Map.of(), Cause.EVENT, "test");
        }
        List<Long> claimed = Collections.synchronizedList(new ArrayList<>());
        CountDownLatch go = new CountDownLatch(1);
        AtomicInteger failures = new AtomicInteger();
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            Dispatcher d = (t % 2 == 0 ? a : b).dispatcher();
            String id = "claimer-" + t;
            d.register(
                    new Register(id, UUID.randomUUID().toString(), List.of("default"), "test", 1, "test", List.of()));
            threads.add(Thread.ofPlatform().start(() -> {
                try {
                    go.await();
                    while (true) {
                        List<WorkItem> items = d.poll(new Poll(id, List.of("default"), 7, 0));
                        if (items.isEmpty()) {
                            return;
                        }
                        items.forEach(w -> claimed.add(w.instanceId()));
                    }
                } catch (Exception e) {
                    failures.incrementAndGet();
                }
            }));
        }
        go.countDown();
        for (Thread t : threads) {
            t.join(30_000);
        }
        assertThat(failures).hasValue(0);
        assertThat(claimed).hasSize(300).doesNotHaveDuplicates();
        List<RunRow> runs =
                storeA.tx(tx -> storeA.runs().list(tx, new RunFilter("burst", null, null, null), Long.MAX_VALUE, 1000));
        assertThat(runs).hasSize(300).allSatisfy(r -> assertThat(r.attempt()).isEqualTo(1));
    }
}
