package dev.ax.scheduler;

import static dev.ax.scheduler.TestNodes.event;
import static dev.ax.scheduler.TestNodes.task;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ax.domain.protocol.Completion;
import dev.ax.domain.protocol.Poll;
import dev.ax.domain.protocol.Register;
import dev.ax.domain.protocol.WorkItem;
import dev.ax.domain.run.EventType;
import dev.ax.domain.run.FailureKind;
import dev.ax.domain.run.RunState;
import dev.ax.domain.task.FieldError;
import dev.ax.domain.task.ValidationException;
import dev.ax.domain.workflow.NodeState;
import dev.ax.domain.workflow.WorkflowRunState;
import dev.ax.store.DbConfig;
import dev.ax.store.Store;
import dev.ax.store.WorkflowRunStore;
import java.time.Instant;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Workflow runs on every database, driven step by step: the executor is this test (it claims
 * what is ready and reports success, or failure for the tasks in {@link #failing}), and the
 * workflow loop's tick is called directly — no threads, no sleeps.
 */
abstract class WorkflowContractTest {
    Store store;
    SchedulerNode node;
    final Set<String> failing = new HashSet<>();

    abstract DbConfig config();

    @BeforeEach
    void open() {
        store = Store.open(config());
        node = TestNodes.node(store, "n1");
        node.dispatcher().register(new Register("e1", "s1", List.of("default"), "test", 1, "t", List.of()));
        for (String t : List.of("t_a", "t_b", "t_c", "t_d", "t_cleanup")) {
            node.tasks().create(task(t, event(), "true", null), "test");
        }
    }

    @AfterEach
    void close() {
        node.close();
        store.close();
    }

    static Map<String, Object> n(String name, String task, String rule) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("name", name);
        m.put("task", task);
        if (rule != null) {
            m.put("triggerRule", rule);
        }
        return m;
    }

    static Map<String, Object> e(String from, String to) {
        return Map.of("from", from, "to", to);
    }

    /** a → {b, c} → d, and the cleanup node e (oneFailed) watching b and c. */
    static Map<String, Object> diamond(String name, Map<String, Object> trigger) {
        Map<String, Object> wf = new LinkedHashMap<>();
        wf.put("name", name);
        if (trigger != null) {
            wf.put("trigger", trigger);
        }
        wf.put(
                "nodes",
                List.of(
                        n("a", "t_a", null),
                        n("b", "t_b", null),
                        n("c", "t_c", null),
                        n("d", "t_d", "allSuccess"),
                        n("e", "t_cleanup", "oneFailed")));
        wf.put("edges", List.of(e("a", "b"), e("a", "c"), e("b", "d"), e("c", "d"), e("b", "e"), e("c", "e")));
        return wf;
    }

    /** Claims and completes everything ready, then lets the workflow loop act, until nothing moves. */
    void runToRest() throws InterruptedException {
        for (int i = 0; i < 20; i++) {
            List<WorkItem> items = node.dispatcher().poll(new Poll("e1", List.of("default"), 50, 0));
            for (WorkItem item : items) {
                boolean ok = !failing.contains(item.taskName());
                node.dispatcher()
                        .complete(new Completion(
                                "e1",
                                item.ref(),
                                ok,
                                ok ? null : FailureKind.EXIT_CODE,
                                ok ? 0 : 3,
                                ok ? "ok" : "exited with code 3"));
            }
            int moved = node.workflows().tick();
            if (items.isEmpty() && moved == 0) {
                return;
            }
        }
    }

    Map<String, NodeState> states(long runId) {
        return node.workflows().service().run(runId).nodes().stream()
                .collect(Collectors.toMap(
                        Workflows.NodeView::name, Workflows.NodeView::state, (x, y) -> x, LinkedHashMap::new));
    }

    @Test
    void a_failed_branch_skips_the_join_runs_the_cleanup_and_a_rerun_from_it_runs_only_it_and_below() throws Exception {
        node.workflows().service().create(diamond("nightly", null), "test");
        failing.add("t_c");
        long run = node.workflows().service().trigger("nightly", Map.of(), "ops");
        runToRest();

        var view = node.workflows().service().run(run);
        assertThat(view.run().state()).isEqualTo(WorkflowRunState.FAILED);
        assertThat(states(run))
                .containsExactly(
                        Map.entry("a", NodeState.SUCCESS),
                        Map.entry("b", NodeState.SUCCESS),
                        Map.entry("c", NodeState.FAILED),
                        Map.entry("d", NodeState.SKIPPED),
                        Map.entry("e", NodeState.SUCCESS));
        assertThat(view.nodes().stream()
                        .filter(x -> x.name().equals("d"))
                        .findFirst()
                        .orElseThrow()
                        .message())
                .isEqualTo("upstream c failed");

        failing.clear();
        var again = node.workflows().service().rerun(run, "c", "ops");
        assertThat(again.run().state()).isEqualTo(WorkflowRunState.RUNNING);
        assertThat(states(run))
                .containsEntry("a", NodeState.SUCCESS)
                .containsEntry("b", NodeState.SUCCESS)
                .containsEntry("c", NodeState.RUNNING)
                .containsEntry("d", NodeState.PENDING)
                .containsEntry("e", NodeState.PENDING);
        runToRest();

        view = node.workflows().service().run(run);
        assertThat(view.run().state()).isEqualTo(WorkflowRunState.SUCCESS);
        assertThat(states(run))
                .containsExactly(
                        Map.entry("a", NodeState.SUCCESS),
                        Map.entry("b", NodeState.SUCCESS),
                        Map.entry("c", NodeState.SUCCESS),
                        Map.entry("d", NodeState.SUCCESS),
                        Map.entry("e", NodeState.SKIPPED));
        // a and b ran once; c twice; d once (skipped the first time); the cleanup once (skipped the second time)
        assertThat(view.instancesPerTask())
                .containsExactlyInAnyOrderEntriesOf(Map.of("t_a", 1, "t_b", 1, "t_c", 2, "t_d", 1, "t_cleanup", 1));
        assertThat(view.events())
                .extracting(WorkflowRunStoreEvents::type)
                .contains(
                        EventType.WORKFLOW_RUN_STARTED,
                        EventType.WORKFLOW_NODE_SKIPPED,
                        EventType.WORKFLOW_RERUN,
                        EventType.WORKFLOW_RUN_FINISHED);
    }

    /** Tiny accessor so the extracting above reads well. */
    interface WorkflowRunStoreEvents {
        static EventType type(WorkflowRunStore.RunEvent e) {
            return e.type();
        }
    }

    @Test
    void a_rerun_without_from_reruns_every_failed_node_and_is_refused_while_running() throws Exception {
        node.workflows().service().create(diamond("nightly", null), "test");
        failing.add("t_b");
        long run = node.workflows().service().trigger("nightly", Map.of(), "ops");
        assertThatThrownBy(() -> node.workflows().service().rerun(run, null, "ops"))
                .isInstanceOf(ConflictException.class);
        runToRest();
        assertThat(node.workflows().service().run(run).run().state()).isEqualTo(WorkflowRunState.FAILED);
        failing.clear();
        node.workflows().service().rerun(run, null, "ops");
        runToRest();
        assertThat(node.workflows().service().run(run).run().state()).isEqualTo(WorkflowRunState.SUCCESS);
        assertThat(node.workflows().service().run(run).instancesPerTask())
                .containsEntry("t_a", 1)
                .containsEntry("t_b", 2);
    }

    @Test
    void a_failed_first_node_skips_everything_and_fails_the_run() throws Exception {
        node.workflows().service().create(diamond("nightly", null), "test");
        failing.add("t_a");
        long run = node.workflows().service().trigger("nightly", Map.of(), "ops");
        runToRest();
        assertThat(node.workflows().service().run(run).run().state()).isEqualTo(WorkflowRunState.FAILED);
        assertThat(states(run))
                .containsEntry("b", NodeState.SKIPPED)
                .containsEntry("d", NodeState.SKIPPED)
                .containsEntry("e", NodeState.SKIPPED);
    }

    @Test
    void a_terminated_node_fails_its_node_through_the_operator_path() throws Exception {
        node.workflows().service().create(diamond("nightly", null), "test");
        long run = node.workflows().service().trigger("nightly", Map.of(), "ops");
        List<WorkItem> items = node.dispatcher().poll(new Poll("e1", List.of("default"), 50, 0));
        assertThat(items).extracting(WorkItem::taskName).containsExactly("t_a");
        node.runs().terminate(items.getFirst().instanceId(), "ops", "wrong day");
        runToRest();
        assertThat(states(run)).containsEntry("a", NodeState.FAILED).containsEntry("b", NodeState.SKIPPED);
        assertThat(node.workflows().service().run(run).run().state()).isEqualTo(WorkflowRunState.FAILED);
    }

    @Test
    void canceling_a_run_withdraws_its_waiting_instance_and_skips_what_has_not_run() throws Exception {
        node.workflows().service().create(diamond("nightly", null), "test");
        long run = node.workflows().service().trigger("nightly", Map.of(), "ops");
        long first = node.workflows().service().run(run).nodes().getFirst().instanceId();
        var canceled = node.workflows().service().cancel(run, "ops", "wrong day");
        assertThat(canceled.run().state()).isEqualTo(WorkflowRunState.CANCELED);
        assertThat(states(run).values()).containsOnly(NodeState.SKIPPED);
        RunState firstState =
                store.tx(tx -> store.runs().find(tx, first).orElseThrow().state());
        assertThat(firstState).isEqualTo(RunState.CANCELED);
        runToRest();
        assertThat(node.workflows().service().run(run).instancesPerTask()).isEqualTo(Map.of("t_a", 1));
        assertThatThrownBy(() -> node.workflows().service().cancel(run, "ops", null))
                .isInstanceOf(ConflictException.class);
        // a canceled run can be run again from a node
        node.workflows().service().rerun(run, "a", "ops");
        runToRest();
        assertThat(node.workflows().service().run(run).run().state()).isEqualTo(WorkflowRunState.SUCCESS);
    }

    @Test
    void a_slot_takes_one_run_whatever_inserts_it() {
        var wf = node.workflows()
                .service()
                .create(diamond("nightly", null), "test")
                .row();
        var slot = Instant.parse("2026-10-01T02:00:00Z");
        var newRun = new WorkflowRunStore.NewWorkflowRun(
                wf.id(),
                wf.name(),
                wf.version(),
                wf.definition(),
                "cron",
                Firing.fireKey(slot),
                slot,
                Map.of(),
                null,
                "test",
                "n1");
        Optional<Long> first = store.tx(tx -> store.workflowRuns().insert(tx, newRun));
        Optional<Long> second = store.tx(tx -> store.workflowRuns().insert(tx, newRun));
        assertThat(first).isPresent();
        assertThat(second).isEmpty();
        List<WorkflowRunStore.WorkflowRunRow> runs =
                store.tx(tx -> store.workflowRuns().list(tx, "nightly", Long.MAX_VALUE, 10));
        assertThat(runs).hasSize(1);
    }

    @Test
    void a_cycle_is_refused_with_its_path_and_an_unknown_task_with_its_field() {
        Map<String, Object> cyclic = Map.of(
                "name",
                "loop",
                "nodes",
                List.of(n("a", "t_a", null), n("b", "t_b", null), n("c", "t_c", null)),
                "edges",
                List.of(e("a", "b"), e("b", "c"), e("c", "a")));
        assertThatThrownBy(() -> node.workflows().service().create(cyclic, "test"))
                .isInstanceOfSatisfying(
                        ValidationException.class,
                        v -> assertThat(v.errors()).contains(new FieldError("edges", "cycle: a → b → c → a")));
        Map<String, Object> unknown =
                Map.of("name", "u", "nodes", List.of(n("a", "t_a", null), n("b", "no_such_task", null)));
        assertThatThrownBy(() -> node.workflows().service().create(unknown, "test"))
                .isInstanceOfSatisfying(
                        ValidationException.class,
                        v -> assertThat(v.errors())
                                .contains(new FieldError("nodes[1].task", "no task named 'no_such_task'")));
        assertThat(node.workflows().service().list(null, 10)).isEmpty();
    }
}
