package dev.ax.alerts;

import static dev.ax.domain.run.EventType.APPROVAL_EXPIRED;
import static dev.ax.domain.run.EventType.APPROVAL_REQUESTED;
import static dev.ax.domain.run.EventType.CLAIMED;
import static dev.ax.domain.run.EventType.EXECUTOR_LOST;
import static dev.ax.domain.run.EventType.FAILED;
import static dev.ax.domain.run.EventType.RETRY_SCHEDULED;
import static dev.ax.domain.run.EventType.SUCCEEDED;
import static dev.ax.domain.run.RunState.CANCELED;
import static dev.ax.domain.run.RunState.RETRYING;
import static dev.ax.domain.run.RunState.SUCCESS;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.domain.run.EventType;
import dev.ax.domain.run.RunState;
import dev.ax.domain.task.SuccessNotice;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Which events become alerts: one row per rule. */
class AlertRulesTest {
    static Stream<Arguments> table() {
        return Stream.of(
                // a final failure is alerted; its kind says how it failed
                Arguments.of(FAILED, RunState.FAILED, "EXIT_CODE", 0, AlertKind.RUN_FAILED),
                Arguments.of(FAILED, RunState.FAILED, "TIMEOUT", 0, AlertKind.RUN_TIMED_OUT),
                Arguments.of(EXECUTOR_LOST, RunState.FAILED, "EXECUTOR_LOST", 0, AlertKind.RUN_EXECUTOR_LOST),
                // a failure that will be retried is not: the last attempt decides
                Arguments.of(EXECUTOR_LOST, RETRYING, "EXECUTOR_LOST", 0, null),
                Arguments.of(RETRY_SCHEDULED, RETRYING, "TIMEOUT", 0, null),
                // approvals
                Arguments.of(APPROVAL_REQUESTED, null, null, 0, AlertKind.APPROVAL_WAITING),
                Arguments.of(APPROVAL_EXPIRED, CANCELED, null, 0, AlertKind.APPROVAL_EXPIRED),
                // a run that waited for its dependencies past its deadline (a FAIL by policy is a plain FAILED above)
                Arguments.of(EventType.DEPENDENCY_DEADLINE, RunState.FAILED, null, 0, AlertKind.DEPENDENCY_DEADLINE),
                Arguments.of(EventType.DEPENDENCY_MET, RunState.BLOCKED, null, 0, null),
                // success: only as a recovery after failures
                Arguments.of(SUCCEEDED, SUCCESS, null, 0, null),
                Arguments.of(SUCCEEDED, SUCCESS, null, 2, AlertKind.RUN_RECOVERED),
                // everything else is quiet (successes are opt-in: see successes_are_opt_in)
                Arguments.of(CLAIMED, RunState.RUNNING, null, 0, null));
    }

    @ParameterizedTest(name = "{0} to {1} ({2}, {3} failures before) -> {4}")
    @MethodSource("table")
    void decides_the_alert_of_an_event(
            EventType type, RunState to, String failureKind, int failuresBefore, AlertKind expected) {
        assertThat(AlertRules.kindOf(type, to, failureKind, failuresBefore)).isEqualTo(Optional.ofNullable(expected));
    }

    @org.junit.jupiter.api.Test
    void successes_are_opt_in_per_task() {
        var never = SuccessNotice.NEVER;
        var recovery = SuccessNotice.RECOVERY;
        var always = SuccessNotice.ALWAYS;
        assertThat(AlertRules.kindOf(SUCCEEDED, SUCCESS, null, 2, never)).isEmpty();
        assertThat(AlertRules.kindOf(SUCCEEDED, SUCCESS, null, 2, recovery)).contains(AlertKind.RUN_RECOVERED);
        assertThat(AlertRules.kindOf(SUCCEEDED, SUCCESS, null, 0, recovery)).isEmpty();
        assertThat(AlertRules.kindOf(SUCCEEDED, SUCCESS, null, 0, always)).contains(AlertKind.RUN_SUCCEEDED);
        assertThat(AlertRules.kindOf(SUCCEEDED, SUCCESS, null, 1, always)).contains(AlertKind.RUN_RECOVERED);
    }

    @org.junit.jupiter.api.Test
    void one_alert_per_instance_outcome_but_one_per_approval_request() {
        assertThat(AlertRules.dedupeKey(AlertKind.RUN_FAILED, 42, 1000))
                .isEqualTo(AlertRules.dedupeKey(AlertKind.RUN_FAILED, 42, 2000));
        assertThat(AlertRules.dedupeKey(AlertKind.APPROVAL_WAITING, 42, 1000))
                .isNotEqualTo(AlertRules.dedupeKey(AlertKind.APPROVAL_WAITING, 42, 2000));
        assertThat(AlertRules.dedupeKey(AlertKind.RUN_RECOVERED, 42, 1)).isEqualTo("recovered:42");
    }
}
