package dev.ax.alerts;

import dev.ax.domain.run.EventType;
import dev.ax.store.EventRow;
import dev.ax.store.TaskRow;
import dev.ax.store.Tx;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A canary rolled back automatically (event {@code CANARY_ROLLED_BACK} with {@code automatic: true})
 * becomes one alert, to the task's {@code policy.notifyOnFailure} channels and the system channels:
 * a change was refused by its own failures, which its author and operations both want to know.
 * A rollback by hand is not alerted: the person who did it knows.
 */
final class CanaryAlerts {
    private CanaryAlerts() {}

    /** True when the event is an automatic canary rollback (the rule, kept pure for the table test). */
    static boolean alerted(EventRow e) {
        return e.type() == EventType.CANARY_ROLLED_BACK
                && Boolean.TRUE.equals(e.data().get("automatic"));
    }

    static void handle(AlertsContext ctx, Tx tx, EventRow e) {
        if (!alerted(e) || e.taskId() == null) {
            return;
        }
        TaskRow task = ctx.store().tasks().findById(tx, e.taskId()).orElse(null);
        List<String> channels = ctx.taskAndSystem(
                task == null ? List.of() : task.definition().policy().notifyOnFailure());
        Map<String, Object> d = e.data();
        Map<String, String> f = new LinkedHashMap<>();
        f.put(
                "Task",
                e.taskName() + " (stable v" + d.get("stableVersion") + ", canary v" + d.get("canaryVersion") + ")");
        f.put(
                "Canary",
                d.get("canaryFailed") + " of " + sum(d.get("canaryOk"), d.get("canaryFailed")) + " runs failed ("
                        + d.get("canaryFailurePercent") + " %)");
        f.put(
                "Stable",
                d.get("stableFailed") + " of " + sum(d.get("stableOk"), d.get("stableFailed")) + " runs failed ("
                        + d.get("stableFailurePercent") + " %)");
        f.put("Canceled", d.get("canceledRuns") + " canary runs that had not started");
        String title = e.taskName() + ": canary v" + d.get("canaryVersion") + " rolled back automatically";
        String link = ctx.config().consoleUrl() == null ? null : ctx.config().consoleUrl() + "/tasks/" + e.taskName();
        AlertContent content = new AlertContent(
                AlertKind.CANARY_ROLLED_BACK,
                title,
                f,
                List.of(String.valueOf(d.get("reason"))),
                null,
                "New runs use v" + d.get("stableVersion")
                        + " again. See the canary's failed runs: ax run list --task " + e.taskName()
                        + "; fix the definition and start a new canary (PUT /api/tasks/" + e.taskName()
                        + "?rollout=canary)",
                link);
        ctx.enqueue(
                tx,
                new Outbox.NewAlert(
                        AlertKind.CANARY_ROLLED_BACK,
                        "canary:" + e.taskId() + ":" + e.id(),
                        e.taskId(),
                        e.taskName(),
                        null,
                        content),
                channels);
    }

    private static long sum(Object a, Object b) {
        return ((Number) a).longValue() + ((Number) b).longValue();
    }
}
