package dev.ax.store;

import dev.ax.domain.run.EventType;
import dev.ax.domain.run.RunState;
import java.time.Instant;
import java.util.Map;

public record EventRow(
        long id,
        Long instanceId,
        Long taskId,
        String taskName,
        EventType type,
        RunState from,
        RunState to,
        Integer attempt,
        String actor,
        String nodeId,
        Instant at,
        String message,
        Map<String, Object> data) {}
