package dev.ax.domain.task;

import java.time.Duration;
import java.util.Objects;

/**
 * One entry of a task's {@code dependsOn}: which upstream run must have succeeded before a run of
 * this task may start.
 *
 * @param task   the upstream task's name; for {@link Scope#PREVIOUS_SLOT} always this task's own name
 * @param window for {@link Scope#LATEST}: how far back before the run's scheduled time a success counts; null otherwise
 */
public record Dependency(String task, Scope scope, Duration window) {

    public enum Scope {
        /** A run of the upstream task with the same business date (scheduled time in each task's zone → date) succeeded. */
        SAME_DATE("sameDate"),
        /** The upstream task succeeded within {@code window} before this run's scheduled time. */
        LATEST("latest"),
        /** This task's own previous slot succeeded (depends-on-past). */
        PREVIOUS_SLOT("previousSlot");

        private final String wire;

        Scope(String wire) {
            this.wire = wire;
        }

        public String wireName() {
            return wire;
        }

        public static Scope fromWire(String s) {
            for (Scope v : values()) {
                if (v.wire.equals(s)) {
                    return v;
                }
            }
            return null;
        }
    }

    public Dependency {
        Objects.requireNonNull(task, "task");
        Objects.requireNonNull(scope, "scope");
    }
}
