package dev.ax.domain.policy;

import dev.ax.domain.run.RunState;
import dev.ax.domain.task.RunRetention;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * Whether history retention may delete a run: a pure function of the task's rules and what is known of the run.
 * Deleting is the dangerous direction, so every reason to keep a run wins over its age: the caller gathers the
 * {@link Keep} reasons it found (a live trigger key, a waiting dependent, a workflow in progress...) and
 * {@link #keep} answers with the first reason that holds, or empty when the run may go.
 */
public final class Expiry {
    private Expiry() {}

    /** Why a run stays. */
    public enum Keep {
        /** Not ended: only a run that reached a terminal state ever expires. */
        ACTIVE,
        /** Ended less than its retention period ago. */
        YOUNG,
        /** Among the newest {@code keepLast} runs of its task (the newest one always is). */
        NEWEST,
        /** The success that holds its task's {@code policy.idempotencyKey}: the key's promise has no end while the task exists. */
        IDEMPOTENCY_KEY,
        /** A trigger's {@code Idempotency-Key} still inside its window answers with this run. */
        TRIGGER_KEY,
        /** A run waiting for its dependencies may be decided by this one. */
        DEPENDENCY,
        /** A step of a workflow run still in progress. */
        WORKFLOW,
        /** A failure follow-up of this run is still to be carried out. */
        FOLLOW_UP
    }

    /**
     * The rules in force for one task: its own {@code policy.retention} over the server's default.
     *
     * @param runs       a run that ended this long ago may go
     * @param failedRuns the same for a run that ended FAILED or TERMINATED
     * @param keepLast   the newest runs of the task that stay whatever their age; at least 1
     */
    public record Rules(Duration runs, Duration failedRuns, int keepLast) {
        public Rules {
            Objects.requireNonNull(runs, "runs");
            Objects.requireNonNull(failedRuns, "failedRuns");
            if (keepLast < 1) {
                throw new IllegalArgumentException("keepLast must be at least 1, was " + keepLast);
            }
        }

        /**
         * A task's rules: each field of its retention it leaves out is the server's; {@code failedRuns} left out is
         * the task's {@code runs}; the newest run of a task is always kept (the console's "last run", the previous
         * slot a {@code previousSlot} dependency looks at).
         */
        public static Rules of(RunRetention task, Duration serverRuns) {
            Duration runs = task.runs() != null ? task.runs() : serverRuns;
            Duration failed = task.failedRuns() != null ? task.failedRuns() : runs;
            int keep = task.keepLast() == null ? 1 : Math.max(1, task.keepLast());
            return new Rules(runs, failed, keep);
        }

        /** The shorter of the two periods: no run created less than this long ago can have expired. */
        public Duration shortest() {
            return runs.compareTo(failedRuns) <= 0 ? runs : failedRuns;
        }

        /** How long a run that ended in this state is kept. */
        public Duration period(RunState state) {
            return failed(state) ? failedRuns : runs;
        }
    }

    /** FAILED and TERMINATED runs are the ones someone may still investigate: {@code failedRuns} applies to them. */
    public static boolean failed(RunState state) {
        return state == RunState.FAILED || state == RunState.TERMINATED;
    }

    /**
     * Why the run must stay, or empty when retention may delete it.
     *
     * @param endedAt when it reached its terminal state (ignored while it has not)
     * @param holds   the reasons to keep it that the caller found besides its state and age
     */
    public static Optional<Keep> keep(Rules rules, RunState state, Instant endedAt, Set<Keep> holds, Instant now) {
        if (!state.isTerminal()) {
            return Optional.of(Keep.ACTIVE);
        }
        if (endedAt == null || endedAt.plus(rules.period(state)).isAfter(now)) {
            return Optional.of(Keep.YOUNG);
        }
        for (Keep k : Keep.values()) {
            if (holds.contains(k)) {
                return Optional.of(k);
            }
        }
        return Optional.empty();
    }
}
