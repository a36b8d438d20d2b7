package dev.ax.store;

import dev.ax.domain.run.Cause;
import dev.ax.domain.run.FailureKind;
import dev.ax.domain.run.RunState;
import java.time.Instant;
import java.util.Map;

/**
 * One run of one task version, as stored.
 *
 * @param fireKey    the slot's key for scheduled runs (its ISO instant), a unique token otherwise
 * @param readyAt    when it may be claimed (the slot time, or the time of the next attempt)
 * @param parentId   the run that caused this one (retry of, re-run of, compensation for)
 * @param rootId     the first run of the trigger chain
 * @param requestIdOverride the rendered idempotency key, when the task defines one
 * @param approvalDeadline  when an undecided approval request expires
 */
public record RunRow(
        long id,
        long taskId,
        String taskName,
        int taskVersion,
        Cause cause,
        String fireKey,
        Instant scheduledAt,
        Map<String, Object> params,
        RunState state,
        int attempt,
        int maxAttempts,
        String group,
        Instant readyAt,
        String executorId,
        Instant leaseExpiresAt,
        Long pid,
        Integer exitCode,
        FailureKind failureKind,
        String message,
        String actor,
        String nodeId,
        Long parentId,
        Long rootId,
        String requestIdOverride,
        Instant createdAt,
        Instant startedAt,
        Instant finishedAt,
        Instant updatedAt,
        Instant approvalDeadline) {

    /**
     * True if {@code executorId} holds this attempt's lease, as {@link RunStore#holds} decides
     * in SQL: the attempt and executor match, and the run is RUNNING (or WAITING_APPROVAL: a job
     * that asked for approval mid-run keeps running and logging).
     */
    public boolean heldBy(int attempt, String executorId) {
        return this.attempt == attempt
                && executorId.equals(this.executorId)
                && (state == RunState.RUNNING || state == RunState.WAITING_APPROVAL);
    }

    /** Sent as {@code X-AX-Request-ID} / {@code AX_REQUEST_ID}: stable for the run across attempts. */
    public String requestId() {
        return requestIdOverride != null ? requestIdOverride : "ax-" + id;
    }
}
