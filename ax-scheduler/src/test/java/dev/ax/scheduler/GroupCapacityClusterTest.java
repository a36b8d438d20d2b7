package dev.ax.scheduler;

import static dev.ax.scheduler.TestNodes.event;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.domain.protocol.Poll;
import dev.ax.domain.protocol.Register;
import dev.ax.domain.protocol.WorkItem;
import dev.ax.domain.run.Cause;
import dev.ax.store.DbConfig;
import dev.ax.store.Store;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** One group's flood cannot take every executor slot: fair shares per poll, and a capacity across executors. */
abstract class GroupCapacityClusterTest {
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
        SchedulerConfig config = SchedulerConfig.DEFAULT.withGroupCapacity(Map.of("reports", 2, "bulk", 1000));
        a = TestNodes.node(storeA, "node-a", Duration.ZERO, config);
        b = TestNodes.node(storeB, "node-b", Duration.ZERO, config);
    }

    @AfterEach
    void close() {
        a.close();
        b.close();
        storeA.close();
        storeB.close();
    }

    static Map<String, Object> task(String name, String group) {
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("taskName", name);
        json.put("trigger", event());
        json.put("action", Map.of("type", "shell", "command", "true", "group", group));
        json.put("policy", Map.of("overflow", "ALLOW"));
        return json;
    }

    List<WorkItem> poll(SchedulerNode node, String executor, List<String> groups, int max) throws InterruptedException {
        node.dispatcher().register(new Register(executor, executor + "-s", groups, "test", 1, "t", List.of()));
        return node.dispatcher().poll(new Poll(executor, groups, max, 0));
    }

    @Test
    void a_group_capacity_holds_across_executors_and_nodes() throws Exception {
        a.tasks().create(task("report", "reports"), "test");
        for (int i = 0; i < 6; i++) {
            a.tasks().trigger("report", Map.of(), Cause.EVENT, "test");
        }
        int first = poll(a, "e1", List.of("reports"), 5).size();
        int second = poll(b, "e2", List.of("reports"), 5).size();
        assertThat(first + second).isEqualTo(2);
        int running = storeA.tx(tx -> storeA.claims().countRunning(tx, "reports"));
        assertThat(running).isEqualTo(2);
    }

    @Test
    void a_flood_in_one_group_does_not_starve_another_group_of_the_same_executor() throws Exception {
        a.tasks().create(task("flood", "bulk"), "test");
        a.tasks().create(task("urgent", "ops"), "test");
        for (int i = 0; i < 20; i++) {
            a.tasks().trigger("flood", Map.of(), Cause.EVENT, "test");
        }
        long urgent = a.tasks().trigger("urgent", Map.of(), Cause.EVENT, "test");
        List<WorkItem> got = poll(a, "e1", List.of("bulk", "ops"), 4);
        assertThat(got).hasSize(4);
        assertThat(got).extracting(WorkItem::instanceId).contains(urgent);
    }

    @Test
    void claims_through_groups_with_capacities_on_two_nodes_at_once_never_wait_for_each_other_s_group_locks()
            throws Exception {
        a.tasks().create(task("flood", "bulk"), "test");
        for (int i = 0; i < 300; i++) {
            a.tasks().trigger("flood", Map.of(), Cause.EVENT, "test");
        }
        // Every claim locks both groups (both have a capacity); each node visits an executor's groups in a rotating
        // order.
        List<String> groups = List.of("bulk", "reports");
        Queue<Long> claimed = new ConcurrentLinkedQueue<>();
        try (ExecutorService pollers = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<?>> done = new ArrayList<>();
            for (int e = 0; e < 8; e++) {
                SchedulerNode node = e % 2 == 0 ? a : b;
                String executor = "e" + e;
                done.add(pollers.submit(() -> {
                    for (int round = 0; round < 40; round++) {
                        poll(node, executor, groups, 1).forEach(item -> claimed.add(item.instanceId()));
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get(); // a deadlock between two claims fails one of them here
            }
        }
        assertThat(claimed).hasSize(300).doesNotHaveDuplicates();
    }
}
