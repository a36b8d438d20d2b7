package dev.ax.scheduler;

import dev.ax.domain.task.RunRetention;
import java.time.Duration;
import java.util.Objects;

/**
 * How long history is kept, server-wide. Immutable; invalid values fail with a message naming the field.
 *
 * @param runs      a run is deleted with its events, output and shards this long after it ended
 *                  ({@code --retention-runs}); a task's {@code policy.retention} may say otherwise for its own runs
 * @param logs      a run's output is deleted this long after the run ended, the run itself staying
 *                  ({@code --retention-logs})
 * @param every     how often a node looks for expired history
 * @param batch     runs deleted per transaction: bounds how long the rows of one batch are locked
 * @param perTick   runs looked at per round at most; a bigger backlog goes over several rounds. Also the pace:
 *                  at most {@code perTick} runs deleted per {@code every}, spread evenly over it ({@link #pause})
 * @param rewalk    how often the walk over runs starts over from the oldest: a run kept for a reason that has since
 *                  gone (a waiting dependent, a pending follow-up) is deleted within this of letting go
 */
public record HistoryRetention(Duration runs, Duration logs, Duration every, int batch, int perTick, Duration rewalk) {
    public static final Duration DEFAULT_RUNS = Duration.ofDays(90);
    public static final Duration DEFAULT_LOGS = Duration.ofDays(30);
    /** Expired rows are gone within a round and a batch's time of expiring. */
    public static final Duration DEFAULT_EVERY = Duration.ofSeconds(10);

    public static final int DEFAULT_BATCH = 500;
    /**
     * At 10 s a round, at most 20,000 runs a second, paced: twice the 10,000 runs a second AX is built
     * for, so a backlog is caught up, never in a burst.
     */
    public static final int DEFAULT_PER_TICK = 200_000;

    /** Once a minute: a pass over what the walk keeps costs a read of it, not on every round. */
    public static final Duration DEFAULT_REWALK = Duration.ofMinutes(1);

    public static final HistoryRetention DEFAULT = new HistoryRetention(
            DEFAULT_RUNS, DEFAULT_LOGS, DEFAULT_EVERY, DEFAULT_BATCH, DEFAULT_PER_TICK, DEFAULT_REWALK);

    public HistoryRetention {
        period("runs", runs);
        period("logs", logs);
        Objects.requireNonNull(every, "every");
        if (every.isNegative() || every.isZero()) {
            throw new IllegalArgumentException("every must be positive, was " + every);
        }
        Objects.requireNonNull(rewalk, "rewalk");
        if (rewalk.isNegative()) {
            throw new IllegalArgumentException("rewalk must be zero or more, was " + rewalk);
        }
        if (batch < 1 || perTick < batch) {
            throw new IllegalArgumentException(
                    "batch must be at least 1 and perTick at least batch, were " + batch + " and " + perTick);
        }
    }

    private static void period(String field, Duration d) {
        Objects.requireNonNull(d, field);
        if (d.isNegative() || d.isZero() || d.compareTo(RunRetention.MAX_PERIOD) > 0) {
            throw new IllegalArgumentException(
                    field + " must be positive and at most P" + RunRetention.MAX_PERIOD.toDays() + "D, was " + d);
        }
    }

    /**
     * How long to wait after {@code deleted} runs of a round that began {@code elapsed} ago, so
     * that deletes go at most {@code perTick} per {@code every}, in even sips: a backlog of
     * expired history must not take the database from the firing and claim path in one burst.
     * Zero when the round is behind that pace.
     */
    public Duration pause(long deleted, Duration elapsed) {
        Duration due = every.multipliedBy(deleted).dividedBy(perTick);
        return due.compareTo(elapsed) > 0 ? due.minus(elapsed) : Duration.ZERO;
    }

    /** The most runs a second retention deletes: {@code perTick} per {@code every}. */
    public double maxRunsPerSecond() {
        return perTick * 1_000_000_000.0 / every.toNanos();
    }

    /** With the default {@code rewalk}. */
    public HistoryRetention(Duration runs, Duration logs, Duration every, int batch, int perTick) {
        this(runs, logs, every, batch, perTick, DEFAULT_REWALK);
    }

    public HistoryRetention withRuns(Duration d) {
        return new HistoryRetention(d, logs, every, batch, perTick, rewalk);
    }

    public HistoryRetention withLogs(Duration d) {
        return new HistoryRetention(runs, d, every, batch, perTick, rewalk);
    }

    public HistoryRetention withEvery(Duration d) {
        return new HistoryRetention(runs, logs, d, batch, perTick, rewalk);
    }

    public HistoryRetention withPerTick(int n) {
        return new HistoryRetention(runs, logs, every, batch, n, rewalk);
    }

    public HistoryRetention withRewalk(Duration d) {
        return new HistoryRetention(runs, logs, every, batch, perTick, d);
    }
}
