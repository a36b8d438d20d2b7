package dev.ax.domain.workflow;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ax.domain.task.FieldError;
import dev.ax.domain.task.ValidationException;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Workflow validation as a pure function: each bad input names its field and reason. */
class WorkflowCodecTest {
    static final Set<String> TASKS = Set.of("extract", "load", "report");

    static Map<String, Object> n(String name, String task) {
        return Map.of("name", name, "task", task);
    }

    static Map<String, Object> e(String from, String to) {
        return Map.of("from", from, "to", to);
    }

    static Map<String, Object> wf(List<?> nodes, List<?> edges) {
        return Map.of("name", "nightly", "nodes", nodes, "edges", edges);
    }

    static Stream<Arguments> bad() {
        return Stream.of(
                Arguments.of(
                        wf(
                                List.of(n("a", "extract"), n("b", "load"), n("c", "report")),
                                List.of(e("a", "b"), e("b", "c"), e("c", "a"))),
                        "edges",
                        "cycle: a → b → c → a"),
                Arguments.of(wf(List.of(n("a", "extract")), List.of(e("a", "a"))), "edges[0]", "cycle: a → a"),
                Arguments.of(
                        wf(List.of(n("a", "extract"), n("b", "nope")), List.of()),
                        "nodes[1].task",
                        "no task named 'nope'"),
                Arguments.of(
                        wf(List.of(n("a", "extract"), n("a", "load")), List.of()),
                        "nodes[1].name",
                        "duplicate node name 'a'"),
                Arguments.of(
                        wf(List.of(n("a", "extract")), List.of(e("a", "zz"))),
                        "edges[0].to",
                        "no node named 'zz' in nodes"),
                Arguments.of(
                        wf(List.of(Map.of("name", "a", "task", "extract", "triggerRule", "sometimes")), List.of()),
                        "nodes[0].triggerRule",
                        "must be allSuccess, allDone or oneFailed"),
                Arguments.of(
                        wf(List.of(Map.of("name", "a", "task", "extract", "triggerRule", "oneFailed")), List.of()),
                        "nodes[0].triggerRule",
                        "oneFailed needs upstream nodes to watch; a has none"),
                Arguments.of(wf(List.of(), List.of()), "nodes", "must be a non-empty list"),
                Arguments.of(
                        Map.of(
                                "name",
                                "x",
                                "nodes",
                                List.of(n("a", "extract")),
                                "trigger",
                                Map.of("type", "cron", "expression", "nope")),
                        "trigger.expression",
                        null));
    }

    @ParameterizedTest
    @MethodSource("bad")
    void refuses_with_field_and_reason(Map<String, Object> json, String field, String reason) {
        assertThatThrownBy(() -> WorkflowCodec.parse(json, TASKS::contains))
                .isInstanceOfSatisfying(ValidationException.class, v -> {
                    assertThat(v.errors()).extracting(FieldError::field).contains(field);
                    if (reason != null) {
                        assertThat(v.errors()).contains(new FieldError(field, reason));
                    }
                });
    }

    @Test
    void a_valid_workflow_round_trips_through_its_json() {
        Map<String, Object> json = Map.of(
                "name",
                "nightly",
                "trigger",
                Map.of("type", "cron", "expression", "0 2 * * *", "timezone", "UTC"),
                "nodes",
                List.of(
                        n("a", "extract"),
                        n("b", "load"),
                        Map.of("name", "c", "task", "report", "triggerRule", "allDone")),
                "edges",
                List.of(e("a", "b"), e("b", "c")));
        WorkflowDefinition def = WorkflowCodec.parse(json, TASKS::contains);
        assertThat(def.node("c").rule()).isEqualTo(TriggerRule.ALL_DONE);
        assertThat(def.node("a").rule()).isEqualTo(TriggerRule.ALL_SUCCESS);
        assertThat(WorkflowCodec.parse(WorkflowCodec.toJson(def), TASKS::contains))
                .isEqualTo(def);
        assertThat(def.topologicalOrder()).containsExactly("a", "b", "c");
    }
}
