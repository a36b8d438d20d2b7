package dev.ax.domain.protocol;

import java.util.List;

/**
 * An executor (re)starting. {@code executorId} is stable across restarts; {@code session} is
 * new for each process, so the server can tell a restart from a reconnect. {@code held} lists
 * the runs the executor still has: after a restart it is empty, and the server fails the runs
 * it thought this executor held instead of waiting for their leases to expire.
 */
public record Register(
        String executorId,
        String session,
        List<String> groups,
        String host,
        long pid,
        String version,
        List<RunRef> held,
        List<String> labels) {
    public Register {
        groups = List.copyOf(groups);
        held = held == null ? List.of() : List.copyOf(held);
        // Environment labels (e.g. "prod"): tasks with environment labels run only on executors carrying all of them.
        labels = labels == null ? List.of() : List.copyOf(labels);
    }

    /** An executor without environment labels (it runs only tasks that name none). */
    public Register(
            String executorId,
            String session,
            List<String> groups,
            String host,
            long pid,
            String version,
            List<RunRef> held) {
        this(executorId, session, groups, host, pid, version, held, List.of());
    }
}
