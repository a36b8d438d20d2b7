package dev.ax.scheduler;

import static dev.ax.scheduler.TestNodes.event;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.domain.protocol.Completion;
import dev.ax.domain.protocol.Poll;
import dev.ax.domain.protocol.Register;
import dev.ax.domain.protocol.WorkItem;
import dev.ax.domain.run.Cause;
import dev.ax.store.ClaimStore;
import dev.ax.store.DbConfig;
import dev.ax.store.Store;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Environment labels: a task's runs go only to executors carrying all its labels. */
abstract class EnvironmentContractTest {
    Store store;
    SchedulerNode node;

    abstract DbConfig config();

    @BeforeEach
    void open() {
        store = Store.open(config());
        node = TestNodes.node(store, "n1");
    }

    @AfterEach
    void close() {
        node.close();
        store.close();
    }

    static Map<String, Object> task(String name, List<String> environment) {
        Map<String, Object> json =
                new LinkedHashMap<>(TestNodes.task(name, event(), "echo " + name, Map.of("overflow", "ALLOW")));
        if (environment != null) {
            json.put("environment", environment);
        }
        return json;
    }

    @Test
    void a_prod_task_runs_only_on_the_prod_executor_and_a_test_task_only_on_the_test_one() throws Exception {
        // Saved before any executor has the label: a warning, not an error (the executor may start later).
        assertThat(node.tasks()
                        .create(task("deploy_prod", List.of("prod")), "alice")
                        .warnings())
                .singleElement()
                .satisfies(w -> assertThat(w).contains("no live executor of group default carries the labels [prod]"));
        register("exec-test", List.of("test"));
        register("exec-prod", List.of("prod"));
        register("exec-plain", List.of());
        assertThat(node.tasks()
                        .create(task("deploy_test", List.of("test")), "alice")
                        .warnings())
                .isEmpty();
        node.tasks().create(task("anywhere", null), "alice");
        for (int i = 0; i < 3; i++) {
            trigger("deploy_prod");
            trigger("deploy_test");
        }

        // The test executor polls first and asks for everything: it still gets none of the prod runs.
        assertThat(tasksOf(poll("exec-test"))).containsOnly("deploy_test").hasSize(3);
        assertThat(tasksOf(poll("exec-plain")))
                .as("an executor without labels runs no labelled task")
                .isEmpty();
        assertThat(tasksOf(poll("exec-prod"))).containsOnly("deploy_prod").hasSize(3);

        // A task without labels runs on any executor, labelled or not.
        trigger("anywhere");
        assertThat(tasksOf(poll("exec-test"))).containsExactly("anywhere");

        // Work only a prod executor may take is not "ready" for the test executor: its long poll waits instead of
        // spinning.
        trigger("deploy_prod");
        var forTest = store.tx(tx -> store.claims()
                .nextReady(tx, List.of("default"), List.of("test"))
                .map(ClaimStore.NextReady::until));
        var forProd = store.tx(tx -> store.claims()
                .nextReady(tx, List.of("default"), List.of("prod"))
                .map(ClaimStore.NextReady::until));
        assertThat(forTest).isEmpty();
        assertThat(forProd).hasValue(Duration.ZERO);
        boolean prodLive =
                store.tx(tx -> store.executors().liveExecutorWithLabels(tx, "default", List.of("prod"), 60_000));
        boolean prodEuLive =
                store.tx(tx -> store.executors().liveExecutorWithLabels(tx, "default", List.of("prod", "eu"), 60_000));
        assertThat(prodLive).isTrue();
        assertThat(prodEuLive).isFalse();
    }

    @Test
    void the_environment_is_stored_with_the_version_that_runs_it() {
        node.tasks().create(task("deploy", List.of("test")), "alice");
        register("exec-test", List.of("test"));
        register("exec-prod", List.of("prod"));
        long onTest = trigger("deploy");
        // "first on test executors, then on production": the same definition moved to prod.
        node.tasks().update("deploy", task("deploy", List.of("prod")), "alice");
        long onProd = trigger("deploy");

        List<WorkItem> test = poll("exec-test");
        List<WorkItem> prod = poll("exec-prod");
        assertThat(test).extracting(WorkItem::instanceId).containsExactly(onTest);
        assertThat(prod).extracting(WorkItem::instanceId).containsExactly(onProd);
        long taskId =
                store.tx(tx -> store.tasks().find(tx, "deploy").orElseThrow()).id();
        List<String> v1 = store.tx(tx -> store.tasks().labels(tx, taskId, 1));
        List<String> v2 = store.tx(tx -> store.tasks().labels(tx, taskId, 2));
        assertThat(v1).containsExactly("test");
        assertThat(v2).containsExactly("prod");
    }

    void register(String id, List<String> labels) {
        node.dispatcher()
                .register(new Register(
                        id, UUID.randomUUID().toString(), List.of("default"), "test", 1, "test", List.of(), labels));
    }

    long trigger(String name) {
        return node.tasks().trigger(name, Map.of(), Cause.MANUAL, "alice");
    }

    List<WorkItem> poll(String executor) {
        try {
            List<WorkItem> items = node.dispatcher().poll(new Poll(executor, List.of("default"), 100, 0));
            for (WorkItem w : items) {
                node.dispatcher().complete(new Completion(executor, w.ref(), true, null, 0, "ok"));
            }
            return items;
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }

    static List<String> tasksOf(List<WorkItem> items) {
        return new ArrayList<>(items.stream().map(WorkItem::taskName).toList());
    }
}
