package dev.ax.store;

import dev.ax.domain.protocol.RunRef;
import dev.ax.domain.run.FailureKind;
import dev.ax.domain.run.ShardState;
import java.time.Instant;

/**
 * One shard of a sharded run, as stored.
 *
 * @param attempt  the shard's own attempt: its fencing token, counted from 1 at its first claim
 * @param readyAt  when it may be claimed (the fan-out, or the time of its next attempt)
 */
public record ShardRow(
        long instanceId,
        int index,
        int total,
        String group,
        ShardState state,
        int attempt,
        Instant readyAt,
        String executorId,
        Instant leaseExpiresAt,
        Long pid,
        Integer exitCode,
        FailureKind failureKind,
        String message,
        Instant startedAt,
        Instant finishedAt) {
    public RunRef ref() {
        return new RunRef(instanceId, attempt, index);
    }
}
