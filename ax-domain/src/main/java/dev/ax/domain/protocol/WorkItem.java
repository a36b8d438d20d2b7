package dev.ax.domain.protocol;

import java.time.Instant;
import java.util.Map;

/**
 * A claimed run, with everything rendered: the executor runs it as given and needs no access
 * to the task's definition or the store.
 *
 * @param actionType     {@code shell}, {@code http} or {@code sdk}
 * @param command        the rendered shell command ({@code shell})
 * @param timeoutSeconds {@code null} when the task has no timeout
 * @param http           the rendered request ({@code http})
 * @param handler        the handler name ({@code sdk})
 * @param params         the run's parameters, for SDK handlers
 */
public record WorkItem(long instanceId, int attempt, String taskName, int taskVersion, String requestId,
                       Instant scheduledAt, String actionType, String command, Map<String, String> env,
                       String workingDir, Long timeoutSeconds, long leaseMillis, HttpCall http, String handler,
                       Map<String, Object> params) {
    public WorkItem {
        env = env == null ? Map.of() : Map.copyOf(env);
        params = params == null ? Map.of() : java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(params));
    }

    /** A shell work item. */
    public WorkItem(long instanceId, int attempt, String taskName, int taskVersion, String requestId, Instant scheduledAt,
                    String actionType, String command, Map<String, String> env, String workingDir, Long timeoutSeconds,
                    long leaseMillis) {
        this(instanceId, attempt, taskName, taskVersion, requestId, scheduledAt, actionType, command, env, workingDir,
                timeoutSeconds, leaseMillis, null, null, Map.of());
    }

    public RunRef ref() {
        return new RunRef(instanceId, attempt);
    }
}
