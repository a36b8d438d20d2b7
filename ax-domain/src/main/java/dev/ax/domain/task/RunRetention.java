package dev.ax.domain.task;

import java.time.Duration;

/**
 * A task's own history retention ({@code policy.retention}); each field left out takes the server's default.
 *
 * @param runs       how long a run is kept after it finished (its events, log and shard rows go with it)
 * @param failedRuns the same for runs that ended FAILED or TERMINATED; when left out, {@code runs}
 * @param keepLast   the newest runs of the task kept whatever their age (the newest one always is)
 */
public record RunRetention(Duration runs, Duration failedRuns, Integer keepLast) {
    /** No override: the server's defaults. */
    public static final RunRetention NONE = new RunRetention(null, null, null);

    public static final int MAX_KEEP_LAST = 100_000;
    /** Ten years: a longer period is a mistake (a year typed in days), and it is written into SQL in milliseconds. */
    public static final Duration MAX_PERIOD = Duration.ofDays(3650);

    /** ISO-8601 as people write periods: whole days as {@code P30D} (Java's own form would be {@code PT720H}). */
    public static String format(Duration d) {
        long s = d.getSeconds();
        return d.getNano() == 0 && s > 0 && s % 86_400 == 0 ? "P" + s / 86_400 + "D" : d.toString();
    }

    public boolean isNone() {
        return runs == null && failedRuns == null && keepLast == null;
    }
}
