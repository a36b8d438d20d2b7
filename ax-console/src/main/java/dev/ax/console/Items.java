package dev.ax.console;

import dev.ax.console.Fmt.Time;
import dev.ax.console.Queries.RunRow;
import dev.ax.console.Views.DiffItem;
import dev.ax.console.Views.RunItem;
import dev.ax.console.Views.VersionItem;
import dev.ax.domain.task.Trigger;
import java.util.List;
import java.util.Map;

/** Rows from the database as the views show them. */
final class Items {
    private Items() {
    }

    static RunItem run(RunRow r) {
        return new RunItem(r.id(), r.taskName(), r.state(), r.cause().wireName(), attempts(r.attempt(), r.maxAttempts()),
                Time.of(r.scheduledAt()), Time.of(r.createdAt()), Time.of(r.finishedAt()),
                Fmt.between(r.startedAt(), r.finishedAt()), r.executorId(), Fmt.num(r.exitCode()));
    }

    static List<RunItem> runs(List<RunRow> rows) {
        return rows.stream().map(Items::run).toList();
    }

    /** "2 of 3": the attempt running or last run, of the most the policy allows; "—" before the first. */
    static String attempts(int attempt, int max) {
        return attempt == 0 ? "— of " + max : attempt + " of " + max;
    }

    /** The schedule in a few words: the cron expression, "every 300 s", or "by event only". */
    static String schedule(Trigger t) {
        return switch (t) {
            case Trigger.Cron c -> c.expression();
            case Trigger.Interval i -> "every " + Fmt.duration(java.time.Duration.ofSeconds(i.intervalSeconds()));
            case Trigger.Event e -> "by event or by hand only";
        };
    }

    static VersionItem version(String taskName, int version, String change, String actor, java.time.Instant at,
                               List<Map<String, Object>> diff) {
        return new VersionItem(taskName, version, change, actor, Time.of(at), diff.stream()
                .map(d -> new DiffItem(String.valueOf(d.get("path")), Fmt.jsonValue(d.get("from")), Fmt.jsonValue(d.get("to"))))
                .toList());
    }
}
