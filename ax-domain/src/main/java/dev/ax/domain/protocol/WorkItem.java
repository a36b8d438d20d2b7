package dev.ax.domain.protocol;

import java.time.Instant;
import java.util.Map;

/**
 * A claimed run, with everything rendered: the executor runs it as given and needs no access
 * to the task's definition or the store.
 *
 * @param timeoutSeconds {@code null} when the task has no timeout
 */
public record WorkItem(long instanceId, int attempt, String taskName, int taskVersion, String requestId,
                       Instant scheduledAt, String actionType, String command, Map<String, String> env,
                       String workingDir, Long timeoutSeconds, long leaseMillis) {
    public WorkItem {
        env = env == null ? Map.of() : Map.copyOf(env);
    }

    public RunRef ref() {
        return new RunRef(instanceId, attempt);
    }
}
