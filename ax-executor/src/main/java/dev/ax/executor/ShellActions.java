package dev.ax.executor;

import dev.ax.domain.protocol.Completion;
import dev.ax.domain.protocol.RunRef;
import dev.ax.domain.protocol.WorkItem;
import dev.ax.domain.run.FailureKind;
import dev.ax.executor.shell.ShellCommand;
import dev.ax.executor.shell.ShellResult;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/** Pure translations between the protocol and the shell runner: a work item to a command, a result to a report. */
final class ShellActions {

    static final String SHELL = "shell";

    private ShellActions() {}

    /**
     * The command for a {@code shell} work item. The AX_* variables are set from the item's own fields even when
     * the server already put them in {@code env}: the fields are what the lease and the reports are about, so a
     * script's idempotency key can never disagree with them.
     *
     * {@code markerName=marker} goes into the environment too: how the reaper finds the run's processes.
     *
     * @throws IllegalArgumentException if the item has no command or its working directory is not a valid path
     */
    static ShellCommand command(WorkItem item, String markerName, String marker) {
        if (item.command() == null || item.command().isBlank()) {
            throw new IllegalArgumentException("the work item has no command");
        }
        Map<String, String> env = new HashMap<>(item.env());
        env.put("AX_INSTANCE_ID", Long.toString(item.instanceId()));
        env.put("AX_ATTEMPT", Integer.toString(item.attempt()));
        putIfPresent(env, "AX_REQUEST_ID", item.requestId());
        putIfPresent(env, "AX_TASK_NAME", item.taskName());
        putIfPresent(
                env,
                "AX_SCHEDULED_AT",
                item.scheduledAt() == null ? null : item.scheduledAt().toString());
        // A shard of a sharded run (policy.sharding): which part of the work is this process's.
        putIfPresent(
                env,
                "AX_SHARD_INDEX",
                item.shardIndex() == null ? null : item.shardIndex().toString());
        putIfPresent(
                env,
                "AX_SHARD_TOTAL",
                item.shardTotal() == null ? null : item.shardTotal().toString());
        env.put(markerName, marker);
        Path workingDir = item.workingDir() == null || item.workingDir().isBlank() ? null : Path.of(item.workingDir());
        Duration timeout = item.timeoutSeconds() == null || item.timeoutSeconds() <= 0
                ? null
                : Duration.ofSeconds(item.timeoutSeconds());
        return new ShellCommand(item.command(), env, workingDir, timeout);
    }

    /** The report for an action this executor cannot run. */
    static Completion unsupported(String executorId, WorkItem item) {
        return new Completion(
                executorId,
                item.ref(),
                false,
                FailureKind.START_ERROR,
                null,
                "action type " + item.actionType() + " is not supported by this executor");
    }

    static Completion startError(String executorId, RunRef run, String message) {
        return new Completion(executorId, run, false, FailureKind.START_ERROR, null, message);
    }

    /**
     * The report for a finished shell, or empty for {@link ShellResult.Outcome#KILLED}: the executor only kills a
     * run when the server told it to stop (or it is shutting down), and then the server has already decided.
     */
    static Optional<Completion> completion(String executorId, RunRef run, ShellResult result) {
        return switch (result.outcome()) {
            case EXITED ->
                Optional.of(
                        result.exitCode() != null && result.exitCode() == 0
                                ? new Completion(executorId, run, true, null, 0, result.message())
                                : new Completion(
                                        executorId,
                                        run,
                                        false,
                                        FailureKind.EXIT_CODE,
                                        result.exitCode(),
                                        result.message()));
            case TIMED_OUT ->
                Optional.of(new Completion(executorId, run, false, FailureKind.TIMEOUT, null, result.message()));
            case START_FAILED -> Optional.of(startError(executorId, run, result.message()));
            case KILLED -> Optional.empty();
        };
    }

    private static void putIfPresent(Map<String, String> env, String name, String value) {
        if (value != null) {
            env.put(name, value);
        }
    }
}
