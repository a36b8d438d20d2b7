package dev.ax.domain.workflow;

import static dev.ax.domain.workflow.NodeState.FAILED;
import static dev.ax.domain.workflow.NodeState.PENDING;
import static dev.ax.domain.workflow.NodeState.RUNNING;
import static dev.ax.domain.workflow.NodeState.SKIPPED;
import static dev.ax.domain.workflow.NodeState.SUCCESS;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.domain.workflow.NodeRule.Verdict;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The trigger rules, one row per case: upstream states in, run / wait / skip and the reason out. */
class NodeRuleTest {
    static Map<String, NodeState> up(Object... pairs) {
        Map<String, NodeState> m = new LinkedHashMap<>();
        for (int i = 0; i < pairs.length; i += 2) {
            m.put((String) pairs[i], (NodeState) pairs[i + 1]);
        }
        return m;
    }

    static Stream<Arguments> table() {
        return Stream.of(
                // rule, upstream, verdict, reason
                Arguments.of(TriggerRule.ALL_SUCCESS, up(), Verdict.RUN, "a first node"),
                Arguments.of(
                        TriggerRule.ALL_SUCCESS,
                        up("a", SUCCESS, "b", SUCCESS),
                        Verdict.RUN,
                        "every upstream node succeeded"),
                Arguments.of(TriggerRule.ALL_SUCCESS, up("a", SUCCESS, "b", RUNNING), Verdict.WAIT, null),
                Arguments.of(TriggerRule.ALL_SUCCESS, up("a", PENDING, "b", SUCCESS), Verdict.WAIT, null),
                Arguments.of(TriggerRule.ALL_SUCCESS, up("a", SUCCESS, "c", FAILED), Verdict.SKIP, "upstream c failed"),
                // a failure decides at once, even while another upstream node still runs
                Arguments.of(TriggerRule.ALL_SUCCESS, up("b", RUNNING, "c", FAILED), Verdict.SKIP, "upstream c failed"),
                Arguments.of(
                        TriggerRule.ALL_SUCCESS,
                        up("b", SUCCESS, "d", SKIPPED),
                        Verdict.SKIP,
                        "upstream d was skipped"),
                Arguments.of(
                        TriggerRule.ALL_DONE,
                        up("a", SUCCESS, "b", FAILED, "c", SKIPPED),
                        Verdict.RUN,
                        "every upstream node is done"),
                Arguments.of(TriggerRule.ALL_DONE, up("a", FAILED, "b", RUNNING), Verdict.WAIT, null),
                Arguments.of(TriggerRule.ONE_FAILED, up("b", SUCCESS, "c", FAILED), Verdict.RUN, "upstream c failed"),
                Arguments.of(TriggerRule.ONE_FAILED, up("b", RUNNING, "c", FAILED), Verdict.RUN, "upstream c failed"),
                Arguments.of(TriggerRule.ONE_FAILED, up("b", SUCCESS, "c", RUNNING), Verdict.WAIT, null),
                Arguments.of(
                        TriggerRule.ONE_FAILED,
                        up("b", SUCCESS, "c", SUCCESS),
                        Verdict.SKIP,
                        "no upstream node failed"),
                Arguments.of(
                        TriggerRule.ONE_FAILED,
                        up("b", SKIPPED, "c", SUCCESS),
                        Verdict.SKIP,
                        "no upstream node failed"));
    }

    @ParameterizedTest
    @MethodSource("table")
    void decides(TriggerRule rule, Map<String, NodeState> upstream, Verdict verdict, String reason) {
        NodeRule.Decision d = NodeRule.decide(rule, upstream);
        assertThat(d.verdict()).isEqualTo(verdict);
        assertThat(d.reason()).isEqualTo(reason);
    }
}
