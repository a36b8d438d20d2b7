package dev.ax.domain.workflow;

import static dev.ax.domain.workflow.NodeState.FAILED;
import static dev.ax.domain.workflow.NodeState.PENDING;
import static dev.ax.domain.workflow.NodeState.RUNNING;
import static dev.ax.domain.workflow.NodeState.SKIPPED;
import static dev.ax.domain.workflow.NodeState.SUCCESS;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** a → {b, c} → d, and a cleanup node e (oneFailed) watching b and c: a graph with a cleanup node. */
class WorkflowPlanTest {
    static final WorkflowDefinition DEF = WorkflowCodec.parse(
            Map.of(
                    "name",
                    "wf",
                    "nodes",
                    List.of(
                            node("a"),
                            node("b"),
                            node("c"),
                            node("d"),
                            Map.of("name", "e", "task", "t", "triggerRule", "oneFailed")),
                    "edges",
                    List.of(
                            edge("a", "b"),
                            edge("a", "c"),
                            edge("b", "d"),
                            edge("c", "d"),
                            edge("b", "e"),
                            edge("c", "e"))),
            t -> true);

    static Map<String, Object> node(String name) {
        return Map.of("name", name, "task", "t");
    }

    static Map<String, Object> edge(String from, String to) {
        return Map.of("from", from, "to", to);
    }

    static Map<String, NodeState> states(NodeState a, NodeState b, NodeState c, NodeState d, NodeState e) {
        Map<String, NodeState> m = new LinkedHashMap<>();
        m.put("a", a);
        m.put("b", b);
        m.put("c", c);
        m.put("d", d);
        m.put("e", e);
        return m;
    }

    @Test
    void a_new_run_starts_only_the_first_node() {
        var plan = WorkflowPlan.next(DEF, states(PENDING, PENDING, PENDING, PENDING, PENDING));
        assertThat(plan.start()).containsExactly("a");
        assertThat(plan.skip()).isEmpty();
        assertThat(plan.outcome()).isEmpty();
    }

    @Test
    void after_the_first_node_both_branches_start() {
        var plan = WorkflowPlan.next(DEF, states(SUCCESS, PENDING, PENDING, PENDING, PENDING));
        assertThat(plan.start()).containsExactly("b", "c");
    }

    @Test
    void a_failed_branch_skips_the_join_and_runs_the_cleanup_node() {
        var plan = WorkflowPlan.next(DEF, states(SUCCESS, SUCCESS, FAILED, PENDING, PENDING));
        assertThat(plan.skip()).containsExactly(Map.entry("d", "upstream c failed"));
        assertThat(plan.start()).containsExactly("e");
        assertThat(plan.outcome()).isEmpty();
    }

    @Test
    void a_run_with_a_failed_node_ends_failed_once_everything_is_final() {
        var plan = WorkflowPlan.next(DEF, states(SUCCESS, SUCCESS, FAILED, SKIPPED, SUCCESS));
        assertThat(plan.start()).isEmpty();
        assertThat(plan.outcome()).contains(WorkflowRunState.FAILED);
    }

    @Test
    void an_unneeded_cleanup_node_is_skipped_and_the_run_succeeds() {
        var plan = WorkflowPlan.next(DEF, states(SUCCESS, SUCCESS, SUCCESS, RUNNING, PENDING));
        assertThat(plan.skip()).containsExactly(Map.entry("e", "no upstream node failed"));
        assertThat(plan.outcome()).isEmpty();
        assertThat(WorkflowPlan.next(DEF, states(SUCCESS, SUCCESS, SUCCESS, SUCCESS, SKIPPED))
                        .outcome())
                .contains(WorkflowRunState.SUCCESS);
    }

    @Test
    void a_failed_first_node_skips_everything_below_in_one_pass() {
        var plan = WorkflowPlan.next(DEF, states(FAILED, PENDING, PENDING, PENDING, PENDING));
        assertThat(plan.skip())
                .containsExactly(
                        Map.entry("b", "upstream a failed"),
                        Map.entry("c", "upstream a failed"),
                        Map.entry("d", "upstream b was skipped"),
                        Map.entry("e", "no upstream node failed"));
        assertThat(plan.outcome()).isEqualTo(Optional.of(WorkflowRunState.FAILED));
    }

    @Test
    void descendants_of_a_rerun_node_are_the_node_and_everything_below_it() {
        assertThat(DEF.withDescendants(List.of("c"))).containsExactly("c", "d", "e");
        assertThat(DEF.withDescendants(List.of("a"))).containsExactly("a", "b", "c", "d", "e");
        assertThat(DEF.depths())
                .containsEntry("a", 0)
                .containsEntry("b", 1)
                .containsEntry("d", 2)
                .containsEntry("e", 2);
    }
}
