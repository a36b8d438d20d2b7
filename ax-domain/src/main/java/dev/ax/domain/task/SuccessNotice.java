package dev.ax.domain.task;

/**
 * Whether a success is worth telling the task's channels ({@code policy.notifyOnSuccess}); failures
 * are always told. Opt-in per task.
 */
public enum SuccessNotice {
    /** Never (the default). */
    NEVER,
    /** Only when it ends a run of failures: "daily_report succeeded again after 2 failures". */
    RECOVERY,
    /** Every success (and recoveries say so). */
    ALWAYS
}
