package dev.ax.domain.task;

/**
 * What a new run does when its task already has {@code maxConcurrency} active runs
 * ({@code policy.overflow}). Active = READY, RUNNING, RETRYING or WAITING_APPROVAL.
 */
public enum OverflowPolicy {
    /** Wait as BLOCKED; queued runs start oldest first as slots free. Bounded by {@code queueLimit}. The default. */
    QUEUE,
    /** Wait as BLOCKED, but only the newest waiting run is kept; an older waiting one is SKIPPED. */
    QUEUE_ONE,
    /** End SKIPPED at once, with the active run named in the event. */
    SKIP,
    /** TERMINATE the active run(s) (their processes killed) and run the new one. */
    REPLACE,
    /** No limit: {@code maxConcurrency} is ignored. */
    ALLOW
}
