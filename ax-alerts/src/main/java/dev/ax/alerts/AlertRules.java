package dev.ax.alerts;

import dev.ax.domain.run.EventType;
import dev.ax.domain.run.FailureKind;
import dev.ax.domain.run.RunState;
import dev.ax.domain.task.SuccessNotice;
import java.util.Optional;
import java.util.Set;

/**
 * Which events of a run become alerts: a pure function of the event and a fact or two about the
 * run's history, so it is tested as a table. The caller reads the facts and writes the alert.
 *
 * <p>Alerted: a final failure (FAILED or EXECUTOR_LOST moving the run to FAILED; a timeout is a
 * failure of kind TIMEOUT), an approval request, an expired approval, and a success right after
 * one or more final failures (recovery). A failure that is retried is not alerted: the last
 * attempt decides. Who receives them is the task's {@code policy.notifyOnFailure}.
 */
final class AlertRules {
    /** The events worth reading anything more for. */
    static final Set<EventType> CANDIDATES = Set.of(
            EventType.FAILED,
            EventType.EXECUTOR_LOST,
            EventType.APPROVAL_REQUESTED,
            EventType.APPROVAL_EXPIRED,
            EventType.SUCCEEDED,
            EventType.DEPENDENCY_DEADLINE);

    private AlertRules() {}

    /**
     * @param failureKind    the event's {@code data.failureKind}, or null
     * @param failuresBefore for SUCCEEDED: how many final failures of the task came right before this run
     */
    static Optional<AlertKind> kindOf(EventType type, RunState to, String failureKind, int failuresBefore) {
        return kindOf(type, to, failureKind, failuresBefore, SuccessNotice.RECOVERY);
    }

    /** @param successes the task's {@code policy.notifyOnSuccess}: successes are opt-in per task */
    static Optional<AlertKind> kindOf(
            EventType type, RunState to, String failureKind, int failuresBefore, SuccessNotice successes) {
        return switch (type) {
            case FAILED ->
                to == RunState.FAILED
                        ? Optional.of(
                                FailureKind.TIMEOUT.name().equals(failureKind)
                                        ? AlertKind.RUN_TIMED_OUT
                                        : AlertKind.RUN_FAILED)
                        : Optional.empty();
            case EXECUTOR_LOST -> to == RunState.FAILED ? Optional.of(AlertKind.RUN_EXECUTOR_LOST) : Optional.empty();
            case APPROVAL_REQUESTED -> Optional.of(AlertKind.APPROVAL_WAITING);
            case APPROVAL_EXPIRED -> Optional.of(AlertKind.APPROVAL_EXPIRED);
            case DEPENDENCY_DEADLINE -> Optional.of(AlertKind.DEPENDENCY_DEADLINE);
            case SUCCEEDED ->
                to != RunState.SUCCESS || successes == SuccessNotice.NEVER
                        ? Optional.empty()
                        : failuresBefore > 0
                                ? Optional.of(AlertKind.RUN_RECOVERED)
                                : successes == SuccessNotice.ALWAYS
                                        ? Optional.of(AlertKind.RUN_SUCCEEDED)
                                        : Optional.empty();
            default -> Optional.empty();
        };
    }

    /**
     * One alert per run outcome (a run ends once); an approval request per request event, since
     * a run may ask twice (before it starts, then mid-run).
     */
    static String dedupeKey(AlertKind kind, long instanceId, long eventId) {
        return switch (kind) {
            case APPROVAL_WAITING -> "approval:" + instanceId + ":" + eventId;
            case RUN_RECOVERED -> "recovered:" + instanceId;
            default -> "run:" + instanceId + ":" + kind.name();
        };
    }
}
