package dev.ax.store;

import dev.ax.domain.run.Cause;
import dev.ax.domain.run.RunState;
import java.time.Instant;
import java.time.LocalDate;
import java.util.Map;

/**
 * What is needed to create a run; see {@link RunStore#create}. {@code businessDate} is
 * the run's date in its task's zone (what dependencies match on), written with the row.
 */
public record NewRun(
        long taskId,
        String taskName,
        int taskVersion,
        Cause cause,
        String fireKey,
        Instant scheduledAt,
        Map<String, Object> params,
        RunState state,
        int maxAttempts,
        String group,
        String actor,
        String nodeId,
        Long parentId,
        Long rootId,
        String message,
        LocalDate businessDate) {
    public NewRun {
        params = params == null ? Map.of() : Map.copyOf(params);
    }

    /** Without a business date (set later by {@link #withBusinessDate}, or none). */
    public NewRun(
            long taskId,
            String taskName,
            int taskVersion,
            Cause cause,
            String fireKey,
            Instant scheduledAt,
            Map<String, Object> params,
            RunState state,
            int maxAttempts,
            String group,
            String actor,
            String nodeId,
            Long parentId,
            Long rootId,
            String message) {
        this(
                taskId,
                taskName,
                taskVersion,
                cause,
                fireKey,
                scheduledAt,
                params,
                state,
                maxAttempts,
                group,
                actor,
                nodeId,
                parentId,
                rootId,
                message,
                null);
    }

    public NewRun withBusinessDate(LocalDate date) {
        return new NewRun(
                taskId,
                taskName,
                taskVersion,
                cause,
                fireKey,
                scheduledAt,
                params,
                state,
                maxAttempts,
                group,
                actor,
                nodeId,
                parentId,
                rootId,
                message,
                date);
    }
}
