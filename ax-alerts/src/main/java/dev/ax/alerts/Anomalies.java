package dev.ax.alerts;

import dev.ax.domain.run.EventType;
import dev.ax.domain.schedule.Schedules;
import dev.ax.domain.task.TaskDefinition;
import dev.ax.domain.task.Trigger;
import dev.ax.store.Store;
import dev.ax.store.TaskRow;
import dev.ax.store.Tx;
import dev.ax.store.read.RunHistoryReads;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * Anomaly detection, a periodic check over every enabled time-triggered task: its
 * scheduled runs in the last {@code anomaly.window} against its slots ({@link SlotAudit}), and
 * every RUNNING run against the durations of its task's recent successes ({@link LongRuns}).
 * Each anomaly is reported once ({@code ax_anomaly}), new ones of a task grouped into one alert.
 *
 * <p>A task's audit goes on from where its last one ended: the slots that came of age since, and
 * the runs created since for older slots (a second run for a slot, or a run at no slot, makes the
 * audit look at the whole window again). Every {@link #FULL_EVERY}th round, and after the task
 * changed, it reads the whole window. Reading the whole window every round read each run ten
 * times: 6 million rows and 6 million cron slots a minute at 10,000 tasks due every second.
 */
final class Anomalies {
    static final int PAGE = 200;
    static final int MAX_LISTED = 20;
    /** One round in this many reads each task's whole window again (catches a run committed late with an older id). */
    static final int FULL_EVERY = 10;

    private final AlertsContext ctx;
    /** What the last round covered, per task; replaced by each round (a task that is gone or disabled drops out). */
    private volatile Map<Long, Covered> covered = Map.of();

    private volatile long runsReadLastRound;

    /** An audit's reach: slots up to {@code to}, runs up to id {@code lastRunId}, of the task as last changed at {@code taskUpdatedAt}. */
    private record Covered(Instant to, long lastRunId, Instant taskUpdatedAt, int rounds) {}

    private record Audit(int alerts, Covered covered, int runsRead) {}

    Anomalies(AlertsContext ctx) {
        this.ctx = ctx;
    }

    /** One round over all tasks and running runs; returns how many alerts were written. */
    int tick() {
        Store store = ctx.store();
        Map<Long, Covered> before = covered;
        Map<Long, Covered> now = new HashMap<>();
        int alerts = 0;
        long read = 0;
        String after = null;
        while (true) {
            String cursor = after;
            List<TaskRow> page = store.tx(tx -> store.tasks().list(tx, cursor, null, PAGE));
            for (TaskRow task : page) {
                if (task.enabled() && task.definition().trigger().isScheduled()) {
                    // Kept only when the whole round got through: after a failed round each task goes on from its reach
                    // before that round, so the slots the failed round looked at are looked at again.
                    Audit a = store.tx(tx -> audit(tx, task, before.get(task.id())));
                    alerts += a.alerts();
                    read += a.runsRead();
                    if (a.covered() != null) {
                        now.put(task.id(), a.covered());
                    }
                }
            }
            if (page.size() < PAGE) {
                break;
            }
            after = page.getLast().name();
        }
        covered = now;
        runsReadLastRound = read;
        return alerts + store.tx(this::longRuns);
    }

    /** The runs the last round's slot audits read, all tasks together. */
    long runsReadLastRound() {
        return runsReadLastRound;
    }

    private Audit audit(Tx tx, TaskRow task, Covered last) {
        AlertsConfig.Anomaly cfg = ctx.config().anomaly();
        Instant now = tx.now();
        // Slots before the task's last change (created, edited, paused, resumed) are not held against it:
        // a resume leaves the slots of the pause to the misfire policy, which records them.
        Instant from = latest(now.minus(cfg.window()), task.updatedAt(), task.createdAt());
        Instant to = now.minus(cfg.grace());
        if (!from.isBefore(to)) {
            return new Audit(0, null, 0);
        }
        boolean goOn = last != null
                && last.rounds() < FULL_EVERY
                && Objects.equals(last.taskUpdatedAt(), task.updatedAt())
                && last.to().isAfter(from)
                && !last.to().isAfter(to);
        // The newest run's id first: a run created after it is read by the next round, whatever its slot.
        long lastRunId;
        int read = 0;
        List<SlotAudit.Run> created = List.of();
        if (goOn) {
            // The task's runs created since the last audit (by the (task, id) index: only those). One for a slot that
            // audit had already looked at (a second run for it, or a run at no slot) makes this one read the whole
            // window.
            Instant lookedAt = last.to();
            created = RunHistoryReads.scheduledRunsAfter(tx, task.id(), last.lastRunId()).stream()
                    .map(r -> new SlotAudit.Run(r.id(), micros(r.scheduledAt())))
                    .toList();
            read += created.size();
            lastRunId = Math.max(
                    last.lastRunId(),
                    created.stream().mapToLong(SlotAudit.Run::id).max().orElse(0));
            goOn = created.stream()
                    .noneMatch(run -> run.slot().isAfter(from) && !run.slot().isAfter(lookedAt));
        } else {
            lastRunId = RunHistoryReads.lastRunId(tx, task.id());
        }
        Instant since = goOn ? last.to() : from;
        List<SlotAudit.Run> runs = new ArrayList<>(runs(tx, task.id(), since, to));
        read += runs.size();
        // The runs were read by their fire key; a new run whose key is not its slot's (a fault like a second run for
        // one slot) is counted from its id all the same.
        Set<Long> seen = new HashSet<>(runs.stream().map(SlotAudit.Run::id).toList());
        Instant sinceMicros = micros(since);
        Instant toMicros = micros(to);
        created.stream()
                .filter(c -> !seen.contains(c.id())
                        && c.slot().isAfter(sinceMicros)
                        && !c.slot().isAfter(toMicros))
                .forEach(runs::add);
        runs.sort(Comparator.comparingLong(SlotAudit.Run::id));
        Covered reach = new Covered(to, lastRunId, task.updatedAt(), goOn ? last.rounds() + 1 : 1);
        TaskDefinition def = task.definition();
        List<Instant> slots = SlotAudit.slots(Schedules.of(def.trigger()), since, to).stream()
                .map(Anomalies::micros)
                .toList();
        SlotAudit.Findings found = SlotAudit.audit(slots, runs, skips(tx, task.id(), from));
        if (found.clean()) {
            return new Audit(0, reach, read);
        }
        return new Audit(report(tx, task, found, from, to), reach, read);
    }

    /** A task's scheduled runs for the slots in {@code (from, to]}, by id. */
    private static List<SlotAudit.Run> runs(Tx tx, long taskId, Instant from, Instant to) {
        return RunHistoryReads.scheduledRunsForSlots(tx, taskId, from, to).stream()
                .map(r -> new SlotAudit.Run(r.id(), micros(r.scheduledAt())))
                .toList();
    }

    /** A line of an anomaly alert, put in each channel's words when the alert is written. */
    private interface Line {
        String in(AlertWords w);
    }

    /** Alerts on what an audit found that was not reported before; returns how many alerts were written. */
    private int report(Tx tx, TaskRow task, SlotAudit.Findings found, Instant from, Instant to) {
        ZoneId zone = task.definition().trigger().timezone();
        int written = 0;
        List<Line> dup = new ArrayList<>();
        found.duplicates().forEach((slot, ids) -> {
            if (ctx.store()
                    .alerts()
                    .firstSighting(
                            tx,
                            "duplicate:" + task.id() + ":" + slot,
                            "DUPLICATE_EXECUTION",
                            task.id(),
                            ids.toString())) {
                dup.add(w -> w.text("anomaly.duplicate_slot", RunAlerts.time(slot, zone), ids(ids)));
            }
        });
        for (SlotAudit.Run stray : found.strays()) {
            if (ctx.store()
                    .alerts()
                    .firstSighting(
                            tx,
                            "stray:" + task.id() + ":" + stray.id(),
                            "DUPLICATE_EXECUTION",
                            task.id(),
                            stray.slot().toString())) {
                dup.add(w -> w.text("anomaly.stray_run", stray.id(), stray.slot()));
            }
        }
        if (!dup.isEmpty()) {
            written += alert(
                    tx,
                    task,
                    AlertKind.DUPLICATE_EXECUTION,
                    w -> w.count("anomaly.duplicate_title", dup.size(), task.name()),
                    dup,
                    from,
                    to,
                    w -> w.text("anomaly.duplicate_next", task.name()));
        }
        List<Line> missed = new ArrayList<>();
        for (Instant slot : found.missed()) {
            if (ctx.store()
                    .alerts()
                    .firstSighting(tx, "missed:" + task.id() + ":" + slot, "MISSED_EXECUTION", task.id(), null)) {
                missed.add(w -> w.text("anomaly.missed_slot", RunAlerts.time(slot, zone)));
            }
        }
        if (!missed.isEmpty()) {
            written += alert(
                    tx,
                    task,
                    AlertKind.MISSED_EXECUTION,
                    w -> w.count("anomaly.missed_title", missed.size(), task.name()),
                    missed,
                    from,
                    to,
                    w -> w.text("anomaly.missed_next", task.name()));
        }
        return written;
    }

    private int alert(
            Tx tx, TaskRow task, AlertKind kind, Line title, List<Line> lines, Instant from, Instant to, Line next) {
        Outbox.Localized content = w -> {
            Map<String, String> f = new LinkedHashMap<>();
            f.put("Task", w.text("value.task", task.name(), task.version()));
            f.put("Schedule", schedule(task.definition().trigger(), w));
            f.put("Window", from + " – " + to);
            List<String> details = new ArrayList<>();
            lines.subList(0, Math.min(lines.size(), MAX_LISTED)).forEach(l -> details.add(l.in(w)));
            if (lines.size() > MAX_LISTED) {
                details.add(w.text("more", lines.size() - MAX_LISTED));
            }
            return new AlertContent(kind, title.in(w), f, details, null, next.in(w), null, w.locale());
        };
        // ax_anomaly already makes each finding once; the key only tells this check's alert apart from the next one's.
        String key = "anomaly:" + kind.name() + ":" + task.id() + ":" + tx.now().toEpochMilli();
        return ctx.enqueue(
                tx,
                new Outbox.NewAlert(kind, key, task.id(), task.name(), null, content),
                ctx.taskAndSystem(task.definition().policy().notifyOnFailure()));
    }

    /** Runs RUNNING far longer than their task's recent successes took. */
    private int longRuns(Tx tx) {
        AlertsConfig.Anomaly cfg = ctx.config().anomaly();
        Store store = ctx.store();
        Instant now = tx.now();
        List<RunHistoryReads.Running> running = RunHistoryReads.runningSince(tx, now.minus(cfg.longRunMin()), 1000);
        Map<Long, Optional<Duration>> thresholds = new LinkedHashMap<>();
        Map<Long, Duration> usual = new LinkedHashMap<>();
        int written = 0;
        for (RunHistoryReads.Running r : running) {
            Optional<Duration> limit = thresholds.computeIfAbsent(r.taskId(), t -> {
                List<Duration> ok = RunHistoryReads.successDurations(tx, t, cfg.longRunSamples());
                LongRuns.p95(ok).ifPresent(p -> usual.put(t, p));
                return LongRuns.threshold(ok, cfg.longRunFactor(), cfg.longRunMin(), AlertsConfig.Anomaly.MIN_SAMPLES);
            });
            Duration age = Duration.between(r.startedAt(), now);
            if (limit.isEmpty() || age.compareTo(limit.get()) <= 0) {
                continue;
            }
            if (!ctx.store()
                    .alerts()
                    .firstSighting(tx, "long:" + r.id() + ":" + r.attempt(), "LONG_RUN", r.taskId(), age.toString())) {
                continue;
            }
            var run = store.runs().find(tx, r.id()).orElseThrow();
            TaskDefinition def = ctx.store().tasks().definition(tx, run.taskId(), run.taskVersion());
            Duration p95 = usual.get(r.taskId());
            RunAlerts.LogTail tail = ctx.runAlerts().logTail(tx, run.id(), run.attempt());
            Outbox.Localized content = w -> {
                Map<String, String> f = new LinkedHashMap<>();
                f.put("Task", w.text("value.task", run.taskName(), run.taskVersion()));
                f.put("Run", "#" + run.id());
                f.put("Attempt", w.text("value.attempt", run.attempt(), run.maxAttempts()));
                f.put(
                        "Started at",
                        RunAlerts.time(run.startedAt(), def.trigger().timezone()));
                f.put("Running for", w.human(age));
                f.put("Usual (p95 of recent successes)", w.human(p95));
                if (run.executorId() != null) {
                    f.put("Executor", RunAlerts.executor(w, run.executorId(), run.pid()));
                }
                return new AlertContent(
                        AlertKind.LONG_RUN,
                        w.text("anomaly.long_title", run.taskName(), run.id(), w.human(age), w.human(p95)),
                        f,
                        List.of(),
                        tail.text(w),
                        w.text("anomaly.long_next", run.id()),
                        ctx.runAlerts().link(run.id()),
                        w.locale());
            };
            written += ctx.enqueue(
                    tx,
                    new Outbox.NewAlert(
                            AlertKind.LONG_RUN,
                            "long:" + run.id() + ":" + run.attempt(),
                            run.taskId(),
                            run.taskName(),
                            run.id(),
                            content),
                    ctx.taskAndSystem(def.policy().notifyOnFailure()));
        }
        return written;
    }

    /** The slots the misfire policy recorded as skipped since {@code from}. */
    private SlotAudit.Skips skips(Tx tx, long taskId, Instant from) {
        Set<Instant> slots = new HashSet<>();
        List<Instant[]> ranges = new ArrayList<>();
        for (Map<String, Object> d : ctx.store().events().dataOfType(tx, taskId, EventType.MISFIRE_SKIPPED, from)) {
            if (d.get("slot") != null) {
                slots.add(micros(Instant.parse(d.get("slot").toString())));
            }
            if (d.get("from") != null && d.get("to") != null) {
                ranges.add(new Instant[] {
                    Instant.parse(d.get("from").toString()),
                    Instant.parse(d.get("to").toString())
                });
            }
        }
        return new SlotAudit.Skips(slots, ranges);
    }

    private static String schedule(Trigger t, AlertWords w) {
        return switch (t) {
            case Trigger.Cron c ->
                w.text("schedule.cron", c.expression(), c.timezone().getId());
            case Trigger.Interval i -> w.text("schedule.every", i.intervalSeconds());
            case Trigger.Event e -> w.text("schedule.event");
        };
    }

    private static String ids(List<Long> ids) {
        return String.join(", ", ids.stream().map(i -> "#" + i).toList());
    }

    /** The database keeps microseconds: compare slots at that precision. */
    private static Instant micros(Instant t) {
        return t.truncatedTo(ChronoUnit.MICROS);
    }

    private static Instant latest(Instant a, Instant... more) {
        Instant max = a;
        for (Instant t : more) {
            if (t != null && t.isAfter(max)) {
                max = t;
            }
        }
        return max;
    }
}
