package dev.ax.domain.workflow;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What a workflow run does next, as a pure function of its graph and its nodes' states: which
 * PENDING nodes start, which are skipped (and why), and — when every node is then final — how
 * the run ended. Nodes are decided in topological order on a working copy of the states, so a
 * skip cascades down the graph in one pass (d skipped because c failed lets e decide at once).
 */
public final class WorkflowPlan {
    private WorkflowPlan() {}

    /**
     * @param start    nodes to give a run now, in topological order
     * @param skip     nodes to mark SKIPPED, with the reason
     * @param outcome  present when every node is final after this plan
     */
    public record Plan(List<String> start, Map<String, String> skip, Optional<WorkflowRunState> outcome) {
        public boolean changesSomething() {
            return !start.isEmpty() || !skip.isEmpty() || outcome.isPresent();
        }
    }

    public static Plan next(WorkflowDefinition def, Map<String, NodeState> states) {
        Map<String, NodeState> work = new LinkedHashMap<>(states);
        List<String> start = new ArrayList<>();
        Map<String, String> skip = new LinkedHashMap<>();
        for (String node : def.topologicalOrder()) {
            if (work.getOrDefault(node, NodeState.PENDING) != NodeState.PENDING) {
                continue;
            }
            Map<String, NodeState> upstream = new LinkedHashMap<>();
            for (String u : def.upstream(node)) {
                upstream.put(u, work.getOrDefault(u, NodeState.PENDING));
            }
            NodeRule.Decision d = NodeRule.decide(def.node(node).rule(), upstream);
            switch (d.verdict()) {
                case RUN -> {
                    start.add(node);
                    work.put(node, NodeState.RUNNING);
                }
                case SKIP -> {
                    skip.put(node, d.reason());
                    work.put(node, NodeState.SKIPPED);
                }
                case WAIT -> {}
            }
        }
        Optional<WorkflowRunState> outcome = Optional.empty();
        if (def.nodes().stream()
                .allMatch(n -> work.getOrDefault(n.name(), NodeState.PENDING).isFinal())) {
            outcome = Optional.of(
                    work.containsValue(NodeState.FAILED) ? WorkflowRunState.FAILED : WorkflowRunState.SUCCESS);
        }
        return new Plan(List.copyOf(start), skip, outcome);
    }
}
