package dev.ax.store;

import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * One entry of a task's audit log.
 *
 * @param change     CREATE, UPDATE, DELETE, PAUSE or RESUME
 * @param definition the definition after the change (absent for DELETE)
 * @param diff       what changed, path by path
 */
public record TaskVersionRow(
        long taskId,
        String taskName,
        int version,
        String change,
        Map<String, Object> definition,
        List<Map<String, Object>> diff,
        String actor,
        Instant at) {}
