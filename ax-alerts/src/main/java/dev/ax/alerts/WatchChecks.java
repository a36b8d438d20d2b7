package dev.ax.alerts;

import java.time.Duration;
import java.util.EnumMap;
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

    /** The failing checks with a one-line reason each; empty = healthy. DATABASE is judged by the caller. */
    static Map<Check, String> failing(WatchFacts f, AlertsConfig.Watch w) {
        Map<Check, String> out = new EnumMap<>(Check.class);
        if (f.loopAge().compareTo(w.loopStall()) > 0) {
            out.put(
                    Check.SCHEDULER_LOOP,
                    "the firing loop has not completed a tick for " + RunAlerts.human(f.loopAge()));
        }
        if (!f.starvedGroups().isEmpty()) {
            out.put(
                    Check.EXECUTORS,
                    "READY runs in group " + String.join(", ", f.starvedGroups()) + " wait and no live executor serves "
                            + (f.starvedGroups().size() == 1 ? "it" : "them"));
        }
        Duration backlog = f.oldestReadyAge();
        if (backlog.compareTo(w.backlogAge()) > 0) {
            out.put(
                    Check.READY_BACKLOG,
                    f.count("ready") + " READY runs wait, the oldest for " + RunAlerts.human(backlog));
        }
        Duration sinceLast = f.lastScheduledAt() == null ? null : Duration.between(f.lastScheduledAt(), f.dbTime());
        if (f.overdueTasks() > 0 && (sinceLast == null || sinceLast.compareTo(w.silence()) > 0)) {
            Duration overdue =
                    f.oldestOverdue() == null ? Duration.ZERO : Duration.between(f.oldestOverdue(), f.dbTime());
            out.put(
                    Check.SILENCE,
                    "no scheduled run was created " + (sinceLast == null ? "yet" : "for " + RunAlerts.human(sinceLast))
                            + " while " + f.overdueTasks() + (f.overdueTasks() == 1 ? " task is" : " tasks are")
                            + " due, the oldest slot "
                            + RunAlerts.human(overdue) + " ago");
        }
        if (f.clockOffset() != null && f.clockOffset().abs().compareTo(w.clockOffset()) > 0) {
            out.put(
                    Check.CLOCK,
                    "this node's clock is " + RunAlerts.human(f.clockOffset().abs())
                            + (f.clockOffset().isNegative() ? " ahead of" : " behind")
                            + " the database's; scheduling is not affected, its log times and timings are");
        }
        return out;
    }

    static String nextAction(Check c, String nodeId) {
        return switch (c) {
            case SCHEDULER_LOOP ->
                "Look for errors in the server log of node " + nodeId + " (logs/ax-server.log in its data directory);"
                        + " restart the node if its loop stays stuck. Other nodes keep firing.";
            case DATABASE -> "Node " + nodeId + " cannot reach the database: check the database and the network to it.";
            case EXECUTORS -> "Start an executor for the group: ax executor --server URL --token TOKEN --group GROUP";
            case READY_BACKLOG ->
                "Add executors for the waiting groups, or look for runs that hold every slot (ax run list --state RUNNING).";
            case SILENCE ->
                "Is any server node running and connected to the database? GET /healthz on each node and read its server log.";
            case CLOCK ->
                "Synchronise the clock of node " + nodeId
                        + " (NTP, chrony or systemd-timesyncd) with the database host's.";
        };
    }
}
