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
        String link = ctx.config().consoleUrl() == null ? null : ctx.config().consoleUrl() + "/tasks/" + e.taskName();
        Outbox.Localized content = w -> {
            Map<String, String> f = new LinkedHashMap<>();
            f.put("Task", w.text("canary.task", e.taskName(), d.get("stableVersion"), d.get("canaryVersion")));
            f.put(
                    "Canary",
                    w.text(
                            "canary.failed_of",
                            d.get("canaryFailed"),
                            sum(d.get("canaryOk"), d.get("canaryFailed")),
                            d.get("canaryFailurePercent")));
            f.put(
                    "Stable",
                    w.text(
                            "canary.failed_of",
                            d.get("stableFailed"),
                            sum(d.get("stableOk"), d.get("stableFailed")),
                            d.get("stableFailurePercent")));
            f.put("Canceled", w.text("canary.canceled", d.get("canceledRuns")));
            return new AlertContent(
                    AlertKind.CANARY_ROLLED_BACK,
                    w.text("canary.title", e.taskName(), d.get("canaryVersion")),
                    f,
                    // The scheduler's reason, as it recorded it.
                    List.of(String.valueOf(d.get("reason"))),
                    null,
                    w.text("canary.next", d.get("stableVersion"), e.taskName()),
                    link,
                    w.locale());
        };
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
