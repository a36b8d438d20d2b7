package dev.ax.scheduler;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.domain.protocol.Completion;
import dev.ax.domain.protocol.Poll;
import dev.ax.domain.protocol.Register;
import dev.ax.domain.protocol.WorkItem;
import dev.ax.domain.run.Cause;
import dev.ax.domain.run.RunState;
import dev.ax.store.DbConfig;
import dev.ax.store.Store;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Two nodes on one database, the loops stopped: node A finishes upstream runs while node B
 * creates downstream runs that wait for them, at the same moments. A downstream run parked while
 * its upstream run ends must never be missed by the release (no lost wake-up, no poll to save it).
 */
abstract class DependencyClusterTest {
    /** A fresh database the nodes share. */
    abstract DbConfig config();

    static final int ROUNDS = 30;
    Store storeA;
    Store storeB;
    SchedulerNode a;
    SchedulerNode b;
    /** Two real threads: the common pool may have one on a small machine, and the two sides must overlap. */
    final ExecutorService threads = Executors.newFixedThreadPool(2);

    @BeforeEach
    void open() {
        DbConfig db = config();
        storeA = Store.open(db);
        storeB = Store.open(db);
        a = TestNodes.node(storeA, "node-a");
        b = TestNodes.node(storeB, "node-b");
        a.dispatcher().register(new Register("ea", "s", List.of("up"), "test", 1, "t", List.of()));
    }

    @AfterEach
    void close() {
        threads.shutdownNow();
        a.close();
        b.close();
        storeA.close();
        storeB.close();
    }

    @Test
    void a_downstream_run_parked_while_its_only_upstream_run_succeeds_is_never_left_waiting() throws Exception {
        for (int i = 0; i < ROUNDS; i++) {
            a.tasks()
                    .create(
                            Map.of(
                                    "taskName",
                                    "up" + i,
                                    "trigger",
                                    TestNodes.event(),
                                    "action",
                                    Map.of("type", "shell", "command", "true", "group", "up")),
                            "test");
            a.tasks()
                    .create(
                            Map.of(
                                    "taskName",
                                    "down" + i,
                                    "trigger",
                                    TestNodes.event(),
                                    "action",
                                    Map.of("type", "shell", "command", "true", "group", "down"),
                                    "dependsOn",
                                    List.of(Map.of("task", "up" + i, "scope", "sameDate"))),
                            "test");
        }
        for (int i = 0; i < ROUNDS; i++) {
            String up = "up" + i;
            a.tasks().trigger(up, Map.of(), Cause.EVENT, "test");
            WorkItem item =
                    a.dispatcher().poll(new Poll("ea", List.of("up"), 1, 1000)).getFirst();
            CyclicBarrier together = new CyclicBarrier(2);
            CompletableFuture<Void> finish = CompletableFuture.runAsync(
                    () -> {
                        await(together);
                        a.dispatcher().complete(new Completion("ea", item.ref(), true, null, 0, "done"));
                    },
                    threads);
            CompletableFuture<Long> park = CompletableFuture.supplyAsync(
                    () -> {
                        await(together);
                        return b.tasks().trigger("down" + up.substring(2), Map.of(), Cause.EVENT, "test");
                    },
                    threads);
            CompletableFuture.allOf(finish, park).get(60, TimeUnit.SECONDS);
            long down = park.get();
            RunState state =
                    storeA.tx(tx -> storeA.runs().find(tx, down)).orElseThrow().state();
            // Either it saw the success when created (READY), or the success's transaction released it.
            assertThat(state).as("round %d", i).isIn(RunState.READY, RunState.BLOCKED);
        }
        assertThat(a.loopErrors() + b.loopErrors()).isZero();
    }

    private static void await(CyclicBarrier barrier) {
        try {
            barrier.await(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
