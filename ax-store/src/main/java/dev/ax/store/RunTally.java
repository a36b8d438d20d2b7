package dev.ax.store;

import dev.ax.domain.run.Cause;
import java.time.Instant;

/**
 * Told, once a transaction commits, of the routine steps of runs it wrote: what the event log
 * said of them before a routine step stopped being an event ({@link RoutineEvents}). The node's
 * metrics listen ({@link Store#tallyTo}); every node tells of its own commits, so counters are
 * summed over nodes. Never called for a transaction that rolled back.
 */
public interface RunTally {
    /** A run was created at {@code at} (database time); {@code slot} is its scheduled time. */
    void created(Cause cause, Instant slot, Instant at);

    /** An attempt was handed to an executor at {@code at}; the first attempt of a run scheduled for {@code slot}. */
    void claimed(Cause cause, int attempt, Instant slot, Instant at);

    /** Runs ended in success. */
    void succeeded(int runs);

    RunTally NONE = new RunTally() {
        @Override
        public void created(Cause cause, Instant slot, Instant at) {}

        @Override
        public void claimed(Cause cause, int attempt, Instant slot, Instant at) {}

        @Override
        public void succeeded(int runs) {}
    };
}
