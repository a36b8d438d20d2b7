package dev.ax.domain.run;

import static dev.ax.domain.run.RunState.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ax.domain.state.IllegalTransitionException;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

class TransitionsTest {

    @ParameterizedTest(name = "{0} -> {1} is allowed")
    @CsvSource({
        "READY, RUNNING",
        "READY, BLOCKED",
        "READY, WAITING_APPROVAL",
        "READY, CANCELED",
        "READY, SKIPPED",
        "RUNNING, SUCCESS",
        "RUNNING, RETRYING",
        "RUNNING, FAILED",
        "RUNNING, TERMINATED",
        "RUNNING, WAITING_APPROVAL",
        "RETRYING, READY",
        "RETRYING, CANCELED",
        "BLOCKED, READY",
        "BLOCKED, WAITING_APPROVAL",
        "BLOCKED, CANCELED",
        "BLOCKED, SKIPPED",
        "WAITING_APPROVAL, READY",
        "WAITING_APPROVAL, RUNNING",
        "WAITING_APPROVAL, CANCELED",
        "WAITING_DEPENDENCY, BLOCKED",
        "WAITING_DEPENDENCY, READY",
        "WAITING_DEPENDENCY, SKIPPED",
        "WAITING_DEPENDENCY, FAILED",
        "WAITING_DEPENDENCY, CANCELED"
    })
    void the_moves_of_the_design_are_allowed(RunState from, RunState to) {
        assertThat(Transitions.isAllowed(from, to)).isTrue();
    }

    @ParameterizedTest(name = "{0} -> {1} is refused")
    @CsvSource({
        "READY, SUCCESS",
        "READY, FAILED",
        "READY, RETRYING",
        "RUNNING, READY",
        "RUNNING, CANCELED",
        "RUNNING, SKIPPED",
        "RETRYING, RUNNING",
        "RETRYING, SUCCESS",
        "BLOCKED, RUNNING",
        "WAITING_APPROVAL, SUCCESS",
        "WAITING_DEPENDENCY, RUNNING"
    })
    void shortcuts_are_refused_with_a_typed_exception(RunState from, RunState to) {
        assertThat(Transitions.isAllowed(from, to)).isFalse();
        assertThatThrownBy(() -> Transitions.check(from, to))
                .isInstanceOf(IllegalTransitionException.class)
                .hasMessageContaining(from.name())
                .hasMessageContaining(to.name());
    }

    @ParameterizedTest
    @EnumSource(
            value = RunState.class,
            names = {"SUCCESS", "FAILED", "TERMINATED", "CANCELED", "SKIPPED"})
    void terminal_states_are_final(RunState terminal) {
        assertThat(terminal.isTerminal()).isTrue();
        assertThat(Transitions.allowedFrom(terminal)).isEmpty();
        Arrays.stream(RunState.values())
                .forEach(to -> assertThat(Transitions.isAllowed(terminal, to)).isFalse());
    }

    @Test
    void only_success_is_successful() {
        assertThat(Arrays.stream(RunState.values()).filter(RunState::isSuccessful))
                .containsExactly(SUCCESS);
    }

    @Test
    void runs_start_ready_blocked_waiting_or_skipped_never_running() {
        assertThat(Arrays.stream(RunState.values()).filter(Transitions::isInitial))
                .containsExactlyInAnyOrder(READY, BLOCKED, WAITING_APPROVAL, SKIPPED, WAITING_DEPENDENCY);
    }

    @Test
    void every_non_terminal_state_has_a_way_out() {
        Arrays.stream(RunState.values())
                .filter(s -> !s.isTerminal())
                .forEach(
                        s -> assertThat(Transitions.allowedFrom(s)).as(s.name()).isNotEmpty());
    }
}
