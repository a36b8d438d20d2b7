package dev.ax.domain.policy;

import dev.ax.domain.task.OverflowPolicy;

/**
 * What a new run of a task does, given how many of its runs are active (READY, RUNNING,
 * RETRYING, WAITING_APPROVAL) and how many wait (BLOCKED). A pure function; the scheduler
 * holds the task's row lock while it counts, decides and writes, so two nodes can never both
 * see a free slot.
 */
public record Overflow(Admission admission, String reason) {
    /** A task without a limit admits every run: nothing was decided, and there is nothing to say. */
    public static final Overflow NO_LIMIT = new Overflow(Admission.RUN, "overflow ALLOW: no limit");

    public enum Admission {
        /** READY now. */
        RUN,
        /** BLOCKED, behind the runs already waiting. */
        QUEUE,
        /** BLOCKED, and the runs already waiting are SKIPPED (only the newest waits). */
        QUEUE_REPLACING_WAITING,
        /** SKIPPED now: the task is busy. */
        SKIP,
        /** SKIPPED now: the queue is at its limit. */
        DROP_QUEUE_FULL,
        /** The active runs are stopped (TERMINATED / CANCELED) and this one is READY. */
        REPLACE_ACTIVE
    }

    public static Overflow decide(
            OverflowPolicy policy, int maxConcurrency, Integer queueLimit, int active, int waiting) {
        if (policy == OverflowPolicy.ALLOW) {
            return NO_LIMIT;
        }
        // A free slot goes to the oldest waiting run first, so a newcomer queues behind any waiting run.
        if (active < maxConcurrency && waiting == 0) {
            return new Overflow(Admission.RUN, active + " of " + maxConcurrency + " runs active");
        }
        String busy = active + " of " + maxConcurrency + " runs active";
        return switch (policy) {
            case QUEUE ->
                queueLimit != null && waiting >= queueLimit
                        ? new Overflow(
                                Admission.DROP_QUEUE_FULL,
                                busy + " and " + waiting + " waiting (queueLimit " + queueLimit + ")")
                        : new Overflow(Admission.QUEUE, busy + "; waits as number " + (waiting + 1) + " in the queue");
            case QUEUE_ONE ->
                new Overflow(
                        Admission.QUEUE_REPLACING_WAITING,
                        busy + "; waits, replacing " + waiting + " older waiting run(s)");
            case SKIP -> new Overflow(Admission.SKIP, busy + "; overflow SKIP");
            case REPLACE -> new Overflow(Admission.REPLACE_ACTIVE, busy + "; overflow REPLACE stops them");
            case ALLOW -> throw new IllegalStateException("handled above");
        };
    }
}
