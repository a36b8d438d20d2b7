package dev.ax.domain.task;

/**
 * What to do with slots that were due longer ago than the scan window (a pause, a restart,
 * downtime). Slots inside the window are simply on time. Every missed slot leaves an event.
 */
public enum MisfirePolicy {
    /** Run once for the latest missed slot; the earlier ones are recorded as skipped. The default. */
    FIRE_ONCE,
    /** Run every missed slot, oldest first. */
    FIRE_ALL,
    /** Run none of them; each is recorded as skipped. */
    SKIP
}
