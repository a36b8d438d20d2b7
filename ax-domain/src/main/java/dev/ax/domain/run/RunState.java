package dev.ax.domain.run;

/**
 * The states of a run (one execution of one task version). The names are the ones operators know; the
 * meanings here are the only definition. Moves between them are listed in {@link Transitions}.
 */
public enum RunState {
    /** Created and due (or waiting for its ready time); an executor of its group may claim it. */
    READY(false, false),
    /** Claimed by an executor that holds its lease; the attempt is executing. */
    RUNNING(false, false),
    /** The attempt failed and another one is scheduled; {@code ready_at} says when. */
    RETRYING(false, false),
    /** Held back by the task's concurrency limit; becomes READY when a slot frees. */
    BLOCKED(false, false),
    /** Waits for a person to approve (before it starts, or mid-run when the job asked). */
    WAITING_APPROVAL(false, false),
    /** Waits for its task's {@code dependsOn} (upstream runs, or its own previous slot) to succeed; holds no concurrency slot. */
    WAITING_DEPENDENCY(false, false),
    /** Finished and the action reported success. */
    SUCCESS(true, true),
    /** Finished unsuccessfully: a non-retryable failure, or retries exhausted. */
    FAILED(true, false),
    /** Stopped while running, by an operator or a policy. */
    TERMINATED(true, false),
    /** Withdrawn before it ran (by an operator, a rejected or expired approval). */
    CANCELED(true, false),
    /** Discarded by a policy before it ran (overlap, idempotency, dependency), with the reason in its events. */
    SKIPPED(true, false);

    private final boolean terminal;
    private final boolean successful;

    RunState(boolean terminal, boolean successful) {
        this.terminal = terminal;
        this.successful = successful;
    }

    /** Terminal states are final: nothing, not even a late report, moves a run out of them. */
    public boolean isTerminal() {
        return terminal;
    }

    public boolean isSuccessful() {
        return successful;
    }

    /** An executor holds (or may hold) a process for the run in these states. */
    public boolean isActive() {
        return this == RUNNING;
    }
}
