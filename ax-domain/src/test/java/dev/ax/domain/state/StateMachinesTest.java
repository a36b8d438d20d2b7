package dev.ax.domain.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ax.domain.alert.AlertState;
import dev.ax.domain.run.BackfillState;
import dev.ax.domain.run.FollowUpState;
import dev.ax.domain.run.RunState;
import dev.ax.domain.run.ShardState;
import dev.ax.domain.run.Transitions;
import dev.ax.domain.task.CanaryState;
import dev.ax.domain.workflow.NodeState;
import dev.ax.domain.workflow.WorkflowBackfillState;
import dev.ax.domain.workflow.WorkflowRunState;
import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every stateful thing's table, written out: a move added to or dropped from a table fails here, so
 * the change is made on purpose (and the documentation of the states changed with it).
 */
class StateMachinesTest {

    static Stream<Arguments> tables() {
        return Stream.of(
                Arguments.of(
                        Transitions.RUNS,
                        "initial BLOCKED READY SKIPPED WAITING_APPROVAL WAITING_DEPENDENCY;"
                                + " BLOCKED>CANCELED,READY,SKIPPED,WAITING_APPROVAL;"
                                + " READY>BLOCKED,CANCELED,RUNNING,SKIPPED,WAITING_APPROVAL;"
                                + " RETRYING>CANCELED,READY;"
                                + " RUNNING>FAILED,RETRYING,SUCCESS,TERMINATED,WAITING_APPROVAL;"
                                + " WAITING_APPROVAL>CANCELED,READY,RUNNING;"
                                + " WAITING_DEPENDENCY>BLOCKED,CANCELED,FAILED,READY,SKIPPED"),
                Arguments.of(
                        ShardState.MACHINE,
                        "initial READY; READY>RUNNING,STOPPED; RETRYING>RUNNING,STOPPED;"
                                + " RUNNING>FAILED,RETRYING,STOPPED,SUCCESS"),
                Arguments.of(
                        BackfillState.MACHINE,
                        "initial RUNNING; PAUSED>CANCELED,RUNNING; RUNNING>CANCELED,DONE,PAUSED"),
                Arguments.of(FollowUpState.MACHINE, "initial PENDING; PENDING>DONE,FAILED"),
                Arguments.of(CanaryState.MACHINE, "initial ACTIVE; ACTIVE>PROMOTED,ROLLED_BACK"),
                Arguments.of(
                        WorkflowRunState.MACHINE,
                        "initial RUNNING; CANCELED>RUNNING; FAILED>RUNNING; RUNNING>CANCELED,FAILED,SUCCESS;"
                                + " SUCCESS>RUNNING"),
                Arguments.of(
                        NodeState.MACHINE,
                        "initial PENDING; FAILED>PENDING; PENDING>FAILED,RUNNING,SKIPPED;"
                                + " RUNNING>FAILED,SKIPPED,SUCCESS; SKIPPED>PENDING; SUCCESS>PENDING"),
                Arguments.of(WorkflowBackfillState.MACHINE, "initial RUNNING; RUNNING>CANCELED,DONE"),
                Arguments.of(AlertState.MACHINE, "initial COLLAPSED PENDING; PENDING>FAILED,SENT"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("tables")
    <S extends Enum<S>> void each_table_is_exactly_the_documented_one(StateMachine<S> machine, String expected) {
        assertThat(describe(machine)).isEqualTo(expected);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("tables")
    <S extends Enum<S>> void a_move_outside_the_table_is_refused_with_the_things_name(
            StateMachine<S> machine, String ignored) {
        S[] states = states(machine);
        for (S from : states) {
            for (S to : states) {
                if (machine.isAllowed(from, to)) {
                    machine.check(from, to);
                } else {
                    assertThatThrownBy(() -> machine.check(from, to))
                            .isInstanceOf(IllegalTransitionException.class)
                            .hasMessage("a " + machine.thing() + " cannot move from " + from + " to " + to);
                }
            }
        }
    }

    @Test
    void the_states_own_words_for_final_agree_with_the_tables() {
        for (RunState s : RunState.values()) {
            assertThat(Transitions.RUNS.isFinal(s)).as(s.name()).isEqualTo(s.isTerminal());
        }
        for (ShardState s : ShardState.values()) {
            assertThat(ShardState.MACHINE.isFinal(s)).as(s.name()).isEqualTo(s.isTerminal());
        }
        for (NodeState s : NodeState.values()) {
            // A final node moves only back to PENDING, by a rerun.
            assertThat(s.isFinal())
                    .as(s.name())
                    .isEqualTo(NodeState.MACHINE.allowedFrom(s).equals(java.util.Set.of(NodeState.PENDING)));
        }
        for (WorkflowRunState s : WorkflowRunState.values()) {
            assertThat(s.isFinished())
                    .as(s.name())
                    .isEqualTo(!WorkflowRunState.MACHINE.allowedFrom(s).contains(WorkflowRunState.SUCCESS));
        }
    }

    @Test
    void a_shard_move_outside_its_table_throws_the_same_exception_as_a_run() {
        assertThatThrownBy(() -> ShardState.check(ShardState.SUCCESS, ShardState.RUNNING))
                .isInstanceOf(IllegalTransitionException.class);
    }

    private static <S extends Enum<S>> String describe(StateMachine<S> machine) {
        S[] states = states(machine);
        Map<String, String> moves = new TreeMap<>();
        for (S s : states) {
            if (!machine.isFinal(s)) {
                moves.put(
                        s.name(),
                        machine.allowedFrom(s).stream().map(Enum::name).sorted().collect(Collectors.joining(",")));
            }
        }
        String initial = Arrays.stream(states)
                .filter(machine::isInitial)
                .map(Enum::name)
                .sorted()
                .collect(Collectors.joining(" "));
        return "initial " + initial + "; "
                + moves.entrySet().stream()
                        .map(e -> e.getKey() + ">" + e.getValue())
                        .collect(Collectors.joining("; "));
    }

    private static <S extends Enum<S>> S[] states(StateMachine<S> machine) {
        return machine.states();
    }
}
