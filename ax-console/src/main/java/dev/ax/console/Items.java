package dev.ax.console;

import dev.ax.console.Fmt.Time;
import dev.ax.console.Views.DiffItem;
import dev.ax.console.Views.ParamField;
import dev.ax.console.Views.RunItem;
import dev.ax.console.Views.VersionItem;
import dev.ax.domain.task.ParamSpec;
import dev.ax.domain.task.Parameters;
import dev.ax.domain.task.Trigger;
import dev.ax.store.read.ConsoleReads.RunListRow;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/** Rows from the database as the views show them. */
final class Items {
    private Items() {}

    /** The trigger form's fields for a task's declared parameters, in declaration order. */
    static List<ParamField> paramFields(Parameters params) {
        return params.specs().entrySet().stream()
                .map(e -> {
                    ParamSpec p = e.getValue();
                    List<String> options = p.type() == ParamSpec.Type.BOOLEAN
                            ? List.of("true", "false")
                            : p.allowed().stream().map(Items::text).toList();
                    boolean numeric = p.type() == ParamSpec.Type.INTEGER || p.type() == ParamSpec.Type.NUMBER;
                    Object dflt = p.defaultValue();
                    String value = dflt instanceof List<?> l
                            ? String.join("\n", l.stream().map(Items::text).toList())
                            : dflt == null ? "" : text(dflt);
                    return new ParamField(
                            e.getKey(),
                            p.type().inputType(),
                            p.required(),
                            value,
                            options,
                            p.description(),
                            numeric && p.min() != null ? p.min().toPlainString() : null,
                            numeric && p.max() != null ? p.max().toPlainString() : null,
                            p.type() == ParamSpec.Type.INTEGER ? "1" : "any",
                            p.type() == ParamSpec.Type.ARRAY);
                })
                .toList();
    }

    private static String text(Object v) {
        return v instanceof BigDecimal d ? d.toPlainString() : String.valueOf(v);
    }

    static RunItem run(RunListRow r, I18n t) {
        return new RunItem(
                r.id(),
                r.taskName(),
                r.state(),
                r.cause().wireName(),
                attempts(r.attempt(), r.maxAttempts(), t),
                Time.of(r.scheduledAt()),
                Time.of(r.createdAt()),
                Time.of(r.finishedAt()),
                t.between(r.startedAt(), r.finishedAt()),
                r.executorId(),
                Fmt.num(r.exitCode()));
    }

    static List<RunItem> runs(List<RunListRow> rows, I18n t) {
        return rows.stream().map(r -> run(r, t)).toList();
    }

    /** "2 of 3": the attempt running or last run, of the most the policy allows; "—" before the first. */
    static String attempts(int attempt, int max, I18n t) {
        return attempt == 0 ? t.text("attempts_none", max) : t.text("attempts", attempt, max);
    }

    /** The schedule in a few words: the cron expression, "every 5 min 0 s", or "by event or by hand only". */
    static String schedule(Trigger trigger, I18n t) {
        return switch (trigger) {
            case Trigger.Cron c -> c.expression();
            case Trigger.Interval i -> t.text("schedule.every", t.duration(Duration.ofSeconds(i.intervalSeconds())));
            case Trigger.Event e -> t.text("schedule.event");
        };
    }

    static VersionItem version(
            String taskName, int version, String change, String actor, Instant at, List<Map<String, Object>> diff) {
        return new VersionItem(
                taskName,
                version,
                change,
                actor,
                Time.of(at),
                diff.stream()
                        .map(d -> new DiffItem(
                                String.valueOf(d.get("path")),
                                Fmt.jsonValue(d.get("from")),
                                Fmt.jsonValue(d.get("to"))))
                        .toList());
    }
}
