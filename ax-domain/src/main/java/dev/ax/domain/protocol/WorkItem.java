package dev.ax.domain.protocol;

import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
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
 * @param shardIndex     the shard (0-based) of a sharded run ({@code policy.sharding}); {@code null} when not sharded,
 *                       and then {@code attempt} is the run's attempt, else the shard's own
 * @param shardTotal     how many shards the run has; {@code null} when not sharded
 * @param masks          the values of the secrets this work carries: the executor writes {@code ***} for each
 *                       wherever it reports text (output, messages), so a job that prints one shows no secret
 */
public record WorkItem(
        long instanceId,
        int attempt,
        String taskName,
        int taskVersion,
        String requestId,
        Instant scheduledAt,
        String actionType,
        String command,
        Map<String, String> env,
        String workingDir,
        Long timeoutSeconds,
        long leaseMillis,
        HttpCall http,
        String handler,
        Map<String, Object> params,
        Integer shardIndex,
        Integer shardTotal,
        List<String> masks) {
    public WorkItem {
        env = env == null ? Map.of() : Map.copyOf(env);
        params = params == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(params));
        masks = masks == null ? List.of() : List.copyOf(masks);
    }

    /** A work item that carries no secrets. */
    public WorkItem(
            long instanceId,
            int attempt,
            String taskName,
            int taskVersion,
            String requestId,
            Instant scheduledAt,
            String actionType,
            String command,
            Map<String, String> env,
            String workingDir,
            Long timeoutSeconds,
            long leaseMillis,
            HttpCall http,
            String handler,
            Map<String, Object> params,
            Integer shardIndex,
            Integer shardTotal) {
        this(
                instanceId,
                attempt,
                taskName,
                taskVersion,
                requestId,
                scheduledAt,
                actionType,
                command,
                env,
                workingDir,
                timeoutSeconds,
                leaseMillis,
                http,
                handler,
                params,
                shardIndex,
                shardTotal,
                List.of());
    }

    /** This item carrying the values of the secrets it holds, to be masked in what the executor reports. */
    public WorkItem withMasks(List<String> values) {
        return new WorkItem(
                instanceId,
                attempt,
                taskName,
                taskVersion,
                requestId,
                scheduledAt,
                actionType,
                command,
                env,
                workingDir,
                timeoutSeconds,
                leaseMillis,
                http,
                handler,
                params,
                shardIndex,
                shardTotal,
                values);
    }

    /** A work item of a run that is not sharded. */
    public WorkItem(
            long instanceId,
            int attempt,
            String taskName,
            int taskVersion,
            String requestId,
            Instant scheduledAt,
            String actionType,
            String command,
            Map<String, String> env,
            String workingDir,
            Long timeoutSeconds,
            long leaseMillis,
            HttpCall http,
            String handler,
            Map<String, Object> params) {
        this(
                instanceId,
                attempt,
                taskName,
                taskVersion,
                requestId,
                scheduledAt,
                actionType,
                command,
                env,
                workingDir,
                timeoutSeconds,
                leaseMillis,
                http,
                handler,
                params,
                null,
                null);
    }

    /** This item as one shard of a sharded run: its own attempt, index and total, and AX_SHARD_* in the environment. */
    public WorkItem asShard(int shardAttempt, int index, int total, String shardRequestId) {
        Map<String, String> shardEnv = new LinkedHashMap<>(env);
        shardEnv.put("AX_ATTEMPT", Integer.toString(shardAttempt));
        shardEnv.put("AX_SHARD_INDEX", Integer.toString(index));
        shardEnv.put("AX_SHARD_TOTAL", Integer.toString(total));
        if (shardRequestId != null) {
            shardEnv.put("AX_REQUEST_ID", shardRequestId);
        }
        return new WorkItem(
                instanceId,
                shardAttempt,
                taskName,
                taskVersion,
                shardRequestId,
                scheduledAt,
                actionType,
                command,
                "shell".equals(actionType) ? shardEnv : env,
                workingDir,
                timeoutSeconds,
                leaseMillis,
                http,
                handler,
                params,
                index,
                total,
                masks);
    }

    /** A shell work item. */
    public WorkItem(
            long instanceId,
            int attempt,
            String taskName,
            int taskVersion,
            String requestId,
            Instant scheduledAt,
            String actionType,
            String command,
            Map<String, String> env,
            String workingDir,
            Long timeoutSeconds,
            long leaseMillis) {
        this(
                instanceId,
                attempt,
                taskName,
                taskVersion,
                requestId,
                scheduledAt,
                actionType,
                command,
                env,
                workingDir,
                timeoutSeconds,
                leaseMillis,
                null,
                null,
                Map.of());
    }

    public RunRef ref() {
        return new RunRef(instanceId, attempt, shardIndex);
    }
}
