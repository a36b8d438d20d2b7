package dev.ax.alerts;

import dev.ax.domain.run.Cause;
import dev.ax.domain.run.RunState;
import dev.ax.store.RunTally;
import java.time.Duration;
import java.time.Instant;

/**
 * The run counters of {@code /metrics} for the routine steps a run's columns hold instead of the
 * event log: created (and the fire lag of a slot), the first claim (the start lag), a success.
 * The store tells this node of what this node committed, so these are summed over nodes like the
 * counters the event tail keeps.
 */
final class RunTallies implements RunTally {
    private final AxMetrics metrics;

    RunTallies(AxMetrics metrics) {
        this.metrics = metrics;
    }

    @Override
    public void created(Cause cause, Instant slot, Instant at) {
        metrics.created(cause.wireName());
        if (cause.isScheduled()) {
            metrics.fired(cause.wireName(), Duration.between(slot, at));
        }
    }

    @Override
    public void claimed(Cause cause, int attempt, Instant slot, Instant at) {
        if (attempt == 1 && cause.isScheduled()) {
            metrics.started(Duration.between(slot, at));
        }
    }

    @Override
    public void succeeded(int runs) {
        for (int i = 0; i < runs; i++) {
            metrics.finished(RunState.SUCCESS);
        }
    }
}
