package dev.ax.api;

import static dev.ax.api.ApiContractTest.eventTask;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.api.ApiClient.Response;
import dev.ax.scheduler.SchedulerConfig;
import dev.ax.store.DbConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Two API nodes on one database, many callers sending the same key at the same instant to either node: one run per
 * key, and every caller told its id. No read-then-write could pass this: the callers all read "no key yet" together.
 */
abstract class TriggerKeyClusterTest {
    static final int CALLERS = 16;
    static final int KEYS = 12;

    /** A fresh database the nodes share. */
    abstract DbConfig db();

    TestNode a;
    TestNode b;

    @BeforeEach
    void start() {
        DbConfig db = db();
        a = new TestNode(db, "node-a", SchedulerConfig.DEFAULT);
        b = new TestNode(db, "node-b", SchedulerConfig.DEFAULT);
        ApiClient admin = a.client(TestNode.ADMIN);
        assertThat(admin.post("/api/tasks", eventTask("limited", "true")).status())
                .isEqualTo(201);
        // Overflow ALLOW: its triggers lock the task row shared, so the key's row is all that stands between two
        // callers.
        assertThat(admin.post(
                                "/api/tasks",
                                eventTask("unlimited", "true").replace("}}", "},\"policy\":{\"overflow\":\"ALLOW\"}}"))
                        .status())
                .isEqualTo(201);
    }

    @AfterEach
    void stop() {
        b.close();
        a.close();
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"limited", "unlimited"})
    void callers_racing_with_one_key_on_two_nodes_make_one_run_and_all_get_its_id(String task) throws Exception {
        List<ApiClient> nodes = List.of(a.client(TestNode.OPERATOR), b.client(TestNode.OPERATOR));
        for (ApiClient node : nodes) {
            // Each node learns which lock the task's triggers take, as it would under traffic.
            assertThat(node.post("/api/trigger", "{\"taskName\":\"" + task + "\"}")
                            .status())
                    .isEqualTo(202);
        }
        String body = "{\"taskName\":\"" + task + "\",\"params\":{\"order\":7}}";
        try (ExecutorService callers = Executors.newFixedThreadPool(CALLERS)) {
            for (int k = 0; k < KEYS; k++) {
                String key = task + "-order-7-attempt-" + k;
                CountDownLatch go = new CountDownLatch(1);
                List<Future<Response>> answers = new ArrayList<>();
                for (int c = 0; c < CALLERS; c++) {
                    ApiClient node = nodes.get(c % 2);
                    String path = c % 4 < 2 ? "/api/trigger" : "/api/tasks/" + task + "/trigger";
                    String sent = path.equals("/api/trigger") ? body : "{\"params\":{\"order\":7}}";
                    answers.add(callers.submit(() -> {
                        go.await();
                        return node.post(path, sent, Map.of("Idempotency-Key", key));
                    }));
                }
                go.countDown();

                List<Response> got = new ArrayList<>();
                for (Future<Response> f : answers) {
                    got.add(f.get(60, TimeUnit.SECONDS));
                }
                assertThat(got)
                        .as(key)
                        .allSatisfy(r -> assertThat(r.status()).as(r.toString()).isIn(200, 202));
                assertThat(got.stream().filter(r -> r.status() == 202))
                        .as(key + ": one caller made the run")
                        .hasSize(1);
                assertThat(got.stream()
                                .map(r -> r.json().get("instanceId").asLong())
                                .distinct())
                        .as(key)
                        .hasSize(1);
                assertThat(got.stream().filter(r -> r.json().get("duplicate").asBoolean()))
                        .hasSize(CALLERS - 1);
            }
        }
        int runs = a.client(TestNode.ADMIN)
                .get("/api/instances?task=" + task + "&limit=500")
                .json()
                .get("items")
                .size();
        assertThat(runs).as("one per key, and the two unkeyed triggers").isEqualTo(KEYS + 2);
        long keys = a.store.tx(tx -> a.store.triggerKeys().count(tx));
        assertThat(keys).isEqualTo(KEYS);
    }
}
