package dev.ax.domain.workflow;

import java.util.Map;

/**
 * The trigger rule of one node as a pure function: the states of its upstream nodes in, run /
 * wait / skip (with the reason) out. {@code upstream} is ordered as the node's upstream list, so
 * the reason names the first culprit.
 */
public final class NodeRule {
    private NodeRule() {}

    public enum Verdict {
        RUN,
        WAIT,
        SKIP
    }

    public record Decision(Verdict verdict, String reason) {
        static Decision run(String reason) {
            return new Decision(Verdict.RUN, reason);
        }

        static final Decision WAIT = new Decision(Verdict.WAIT, null);

        static Decision skip(String reason) {
            return new Decision(Verdict.SKIP, reason);
        }
    }

    public static Decision decide(TriggerRule rule, Map<String, NodeState> upstream) {
        boolean allFinal = upstream.values().stream().allMatch(NodeState::isFinal);
        String failed = first(upstream, NodeState.FAILED);
        return switch (rule) {
            case ALL_SUCCESS -> {
                if (failed != null) {
                    yield Decision.skip("upstream " + failed + " failed");
                }
                String skipped = first(upstream, NodeState.SKIPPED);
                if (skipped != null) {
                    yield Decision.skip("upstream " + skipped + " was skipped");
                }
                yield allFinal
                        ? Decision.run(upstream.isEmpty() ? "a first node" : "every upstream node succeeded")
                        : Decision.WAIT;
            }
            case ALL_DONE -> allFinal ? Decision.run("every upstream node is done") : Decision.WAIT;
            case ONE_FAILED -> {
                if (failed != null) {
                    yield Decision.run("upstream " + failed + " failed");
                }
                yield allFinal ? Decision.skip("no upstream node failed") : Decision.WAIT;
            }
        };
    }

    private static String first(Map<String, NodeState> upstream, NodeState state) {
        return upstream.entrySet().stream()
                .filter(e -> e.getValue() == state)
                .map(Map.Entry::getKey)
                .findFirst()
                .orElse(null);
    }
}
