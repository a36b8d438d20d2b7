package dev.ax.alerts;

import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * The watchdog's checks ("the scheduler must be monitored first"): a pure function of
 * the facts and the thresholds, so /healthz and the watchdog loop judge alike and a table test
 * covers each.
 */
final class WatchChecks {
    enum Check {
        /** This node's firing loop has not completed a tick for too long (stuck, paused, failing). */
        SCHEDULER_LOOP("scheduler-loop", true),
        /** This node cannot reach the database. */
        DATABASE("database", true),
        /** READY runs wait in a group that no live executor serves. */
        EXECUTORS("executors", false),
        /** The oldest READY run has waited too long for an executor. */
        READY_BACKLOG("ready-backlog", false),
        /** Tasks are overdue and no scheduled run was created anywhere for a while: nothing fires. */
        SILENCE("silence", false),
        /**
         * This node's clock is far from the database's. Scheduling is immune (the database's clock decides), so the node
         * is degraded, not unhealthy; but what it logs and times is off.
         */
        CLOCK("clock", true, true);

        final String wireName;
        /** Node-local checks are kept per node; the others are one fact for the whole cluster. */
        final boolean perNode;
        /** True for a check that makes the node degraded (still 200) rather than unhealthy (503); it is alerted all the same. */
        final boolean degradesOnly;

        Check(String wireName, boolean perNode) {
            this(wireName, perNode, false);
        }

        Check(String wireName, boolean perNode, boolean degradesOnly) {
            this.wireName = wireName;
            this.perNode = perNode;
            this.degradesOnly = degradesOnly;
        }

        /** The key of this check's state in ax_watch_check. */
        String key(String nodeId) {
            return perNode ? wireName + "@" + nodeId : wireName;
        }
    }

    private WatchChecks() {}

    /**
     * Why a check fails: a text of the alerts' bundles and its values. English on /healthz and in the server log; an
     * alert puts it in its channel's words (a duration too: "3m 5s", "3 分 5 秒").
     */
    record Finding(String key, List<Object> values) {
        static Finding of(String key, Object... values) {
            return new Finding(key, List.of(values));
        }

        String in(AlertWords w) {
            return w.text(
                    key,
                    values.stream()
                            .map(v -> v instanceof Duration d ? w.human(d) : v)
                            .toArray());
        }

        /** English, as /healthz says it. */
        @Override
        public String toString() {
            return in(AlertWords.ENGLISH);
        }
    }

    /** The failing checks with a one-line reason each; empty = healthy. DATABASE is judged by the caller. */
    static Map<Check, Finding> failing(WatchFacts f, AlertsConfig.Watch w) {
        Map<Check, Finding> out = new EnumMap<>(Check.class);
        if (f.loopAge().compareTo(w.loopStall()) > 0) {
            out.put(Check.SCHEDULER_LOOP, Finding.of("watch.scheduler_loop", f.loopAge()));
        }
        if (!f.starvedGroups().isEmpty()) {
            out.put(
                    Check.EXECUTORS,
                    Finding.of(
                            f.starvedGroups().size() == 1 ? "watch.executors.one" : "watch.executors.many",
                            String.join(", ", f.starvedGroups())));
        }
        Duration backlog = f.oldestReadyAge();
        if (backlog.compareTo(w.backlogAge()) > 0) {
            out.put(Check.READY_BACKLOG, Finding.of("watch.backlog", f.count("ready"), backlog));
        }
        Duration sinceLast = f.lastScheduledAt() == null ? null : Duration.between(f.lastScheduledAt(), f.dbTime());
        if (f.overdueTasks() > 0 && (sinceLast == null || sinceLast.compareTo(w.silence()) > 0)) {
            Duration overdue =
                    f.oldestOverdue() == null ? Duration.ZERO : Duration.between(f.oldestOverdue(), f.dbTime());
            String key = (sinceLast == null ? "watch.silence_yet" : "watch.silence_for")
                    + (f.overdueTasks() == 1 ? ".one" : ".many");
            out.put(
                    Check.SILENCE,
                    sinceLast == null
                            ? Finding.of(key, f.overdueTasks(), overdue)
                            : Finding.of(key, f.overdueTasks(), overdue, sinceLast));
        }
        if (f.clockOffset() != null && f.clockOffset().abs().compareTo(w.clockOffset()) > 0) {
            out.put(
                    Check.CLOCK,
                    Finding.of(
                            f.clockOffset().isNegative() ? "watch.clock_ahead" : "watch.clock_behind",
                            f.clockOffset().abs()));
        }
        return out;
    }

    /** What to do about a failing check, in the alert's words. */
    static String nextAction(Check c, String nodeId, AlertWords w) {
        return w.text("watch.next." + c.wireName, nodeId);
    }
}
