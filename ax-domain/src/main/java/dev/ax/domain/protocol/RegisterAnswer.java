package dev.ax.domain.protocol;

import java.util.List;

/**
 * @param leaseMillis     how long a lease lasts without a heartbeat
 * @param heartbeatMillis how often the executor should heartbeat (a fraction of the lease)
 * @param abandon         runs in {@code held} that the executor must stop (the server no longer assigns them to it)
 */
public record RegisterAnswer(long leaseMillis, long heartbeatMillis, List<RunRef> abandon) {
    public RegisterAnswer {
        abandon = List.copyOf(abandon);
    }
}
