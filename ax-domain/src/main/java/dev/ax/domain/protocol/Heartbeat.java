package dev.ax.domain.protocol;

import java.util.List;

/** Renews the leases of the runs the executor holds. */
public record Heartbeat(String executorId, String session, List<RunRef> held) {
    public Heartbeat {
        held = List.copyOf(held);
    }
}
