package dev.ax.store;

import dev.ax.domain.run.Cause;
import dev.ax.domain.run.InstanceState;
import java.time.Instant;
import java.util.Map;

/** What is needed to create an instance; see {@link InstanceStore#create}. */
public record NewInstance(long taskId, String taskName, int taskVersion, Cause cause, String fireKey, Instant scheduledAt,
                          Map<String, Object> params, InstanceState state, int maxAttempts, String group, String actor,
                          String nodeId, Long parentId, Long rootId, String message) {
    public NewInstance {
        params = params == null ? Map.of() : Map.copyOf(params);
    }
}
