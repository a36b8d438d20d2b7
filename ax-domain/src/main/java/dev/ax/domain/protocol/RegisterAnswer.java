package dev.ax.domain.protocol;

import java.util.List;

/**
 * @param leaseMillis     how long a lease lasts without a heartbeat
 * @param heartbeatMillis how often the executor should heartbeat (a fraction of the lease)
 * @param abandon         runs in {@code held} that the executor must stop (the server no longer assigns them to it)
 * @param lost            runs an earlier life of this executor held and did not report now, which the server has just
 *                        failed as EXECUTOR_LOST: the executor kills whatever of them still runs
 */
public record RegisterAnswer(long leaseMillis, long heartbeatMillis, List<RunRef> abandon, List<RunRef> lost) {
    public RegisterAnswer {
        abandon = List.copyOf(abandon);
        lost = lost == null ? List.of() : List.copyOf(lost);
    }

    /** An answer that declares no run lost. */
    public RegisterAnswer(long leaseMillis, long heartbeatMillis, List<RunRef> abandon) {
        this(leaseMillis, heartbeatMillis, abandon, List.of());
    }
}
