package dev.ax.domain.run;

import java.util.Locale;

/** Why a run exists. Written on the run and at the root of its trigger chain. */
public enum Cause {
    CRON,
    INTERVAL,
    EVENT,
    MANUAL,
    RETRY,
    BACKFILL,
    DEPENDENCY,
    COMPENSATION,
    /** Runs a task's approval preview action; its output goes with the approval request of its parent. */
    PREVIEW,
    /** Runs a node of a workflow run (its {@code workflow_run_id} says which). */
    WORKFLOW,
    /** A draft definition run once before it is saved ({@code POST /api/tasks/{name}/test-run}); no follow-ups, no alerts. */
    TEST;

    /** Time-triggered runs are keyed by their slot; at most one per (task, slot). */
    public boolean isScheduled() {
        return this == CRON || this == INTERVAL;
    }

    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }
}
