package dev.ax.store;

import dev.ax.domain.task.TaskDefinition;
import java.time.Instant;

/**
 * A task as stored: its current definition plus the columns the scheduler queries.
 *
 * @param nextFireAt the next slot to fire; {@code null} for event tasks and finished schedules
 * @param canary     true while a canary rollout of the task is ACTIVE
 * @param hasDependents true if another task's {@code dependsOn} names it (or it depends on its previous slot)
 */
public record TaskRow(
        long id,
        String name,
        int version,
        TaskDefinition definition,
        boolean enabled,
        Instant nextFireAt,
        Instant createdAt,
        String createdBy,
        Instant updatedAt,
        String updatedBy,
        boolean canary,
        boolean hasDependents) {
    public boolean paused() {
        return !enabled;
    }
}
