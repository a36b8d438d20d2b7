package dev.ax.store;

import dev.ax.domain.run.EventType;
import java.util.Map;

/** A task-level event (no run): task changes and slots that produced no run. */
public record NewEvent(
        Long taskId,
        String taskName,
        EventType type,
        String actor,
        String nodeId,
        String message,
        Map<String, Object> data) {}
