package dev.ax.scheduler;

import dev.ax.domain.run.Cause;
import dev.ax.domain.run.EventType;
import dev.ax.domain.run.RunState;
import dev.ax.domain.schedule.Schedules;
import dev.ax.domain.task.ParsedTask;
import dev.ax.domain.task.TaskDefinition;
import dev.ax.domain.task.TaskDefinitionCodec;
import dev.ax.domain.task.ValidationException;
import dev.ax.domain.template.Target;
import dev.ax.domain.template.TemplateContext;
import dev.ax.domain.template.TemplateException;
import dev.ax.domain.template.Templates;
import dev.ax.store.AuditStore.Entry;
import dev.ax.store.Move;
import dev.ax.store.NewEvent;
import dev.ax.store.RunRow;
import dev.ax.store.Store;
import dev.ax.store.TaskRow;
import dev.ax.store.Tx;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * What people and services do to tasks: create, edit, pause, resume, delete, trigger. Each
 * change is one transaction with its version row and its event; triggers that arrive together
 * share one (see {@link #triggers}). Input is validated completely before anything is written.
 */
public final class Tasks {
    private final NodeContext ctx;
    private final ConcurrencyGate gate;

    private final Triggers triggers;

    Tasks(NodeContext ctx, ConcurrencyGate gate) {
        this.ctx = ctx;
        this.gate = gate;
        this.triggers = new Triggers(ctx, gate);
    }

    /** A stored task with the warnings its definition raised (e.g. an unconfigured alert channel). */
    public record Saved(TaskRow task, List<String> warnings, boolean created) {}

    public Saved create(Object json, String actor) {
        ParsedTask parsed = TaskDefinitionCodec.parse(json, ctx.config().channels());
        TaskDefinition def = parsed.definition();
        checkIdempotencyKey(def);
        Store store = ctx.store();
        TaskRow row = store.tx(tx -> {
            if (store.tasks().find(tx, def.taskName()).isPresent()) {
                throw new ConflictException("task " + def.taskName() + " already exists; use PUT /api/tasks/"
                        + def.taskName() + " to change it");
            }
            DependencyChecks.check(tx, store, def);
            SecretChecks.requireSet(tx, store, def);
            Teams.requireExists(tx, store, def.team(), "team");
            TaskRow t = store.tasks().insert(tx, def, firstSlotAfter(def, tx.now()), actor);
            store.dependencies().setUpstreams(tx, t.id(), DependencyChecks.edges(def));
            store.events()
                    .append(
                            tx,
                            new NewEvent(
                                    t.id(),
                                    t.name(),
                                    EventType.TASK_CREATED,
                                    actor,
                                    ctx.nodeId(),
                                    "version 1 created",
                                    Map.of("version", 1)));
            return t;
        });
        ctx.signals().tasksChanged();
        return new Saved(row, EnvironmentCheck.warnings(ctx, def, parsed.warnings()), true);
    }

    /**
     * Replaces a task's definition. The next slot is recomputed from now only if the trigger
     * changed; otherwise it stays, so an edit never fires or skips a slot by itself.
     */
    public Saved update(String name, Object json, String actor) {
        ParsedTask parsed = TaskDefinitionCodec.parse(json, ctx.config().channels());
        TaskDefinition def = parsed.definition();
        checkIdempotencyKey(def);
        if (!def.taskName().equals(name)) {
            throw new ValidationException(
                    "taskName", "must be '" + name + "' (the name in the URL); rename by creating a new task");
        }
        Store store = ctx.store();
        TaskRow row = store.tx(tx -> {
            TaskRow current = store.tasks().lock(tx, name).orElseThrow(() -> notFound(name));
            DependencyChecks.check(tx, store, def);
            SecretChecks.requireSet(tx, store, def);
            Teams.requireExists(tx, store, def.team(), "team");
            gate.canaries().refuseEdit(tx, current);
            Instant next = Objects.equals(current.definition().trigger(), def.trigger())
                    ? current.nextFireAt()
                    : firstSlotAfter(def, tx.now());
            TaskRow t = store.tasks().update(tx, current, def, next, actor);
            store.dependencies().setUpstreams(tx, t.id(), DependencyChecks.edges(def));
            String ahead = firedAhead(tx, current, t, actor);
            store.events()
                    .append(
                            tx,
                            new NewEvent(
                                    t.id(),
                                    t.name(),
                                    EventType.TASK_UPDATED,
                                    actor,
                                    ctx.nodeId(),
                                    "version " + t.version() + ahead,
                                    Map.of("version", t.version())));
            // A raised limit (or overflow ALLOW) lets waiting runs start now, not at the next housekeeping pass.
            gate.release(tx, t);
            return t;
        });
        ctx.signals().tasksChanged();
        return new Saved(row, EnvironmentCheck.warnings(ctx, def, parsed.warnings()), false);
    }

    /**
     * What becomes of the runs fired ahead of their slot (not due yet) when their task is edited:
     * the slot's run does what the edit says. Same trigger and still firing ahead: they take the
     * new version. Otherwise their slots are not the new definition's to run that way (another
     * trigger, or a policy that must decide at the slot): they are canceled, each with the reason.
     * Returns what was done, for the TASK_UPDATED event ("" when nothing was fired ahead).
     */
    private String firedAhead(Tx tx, TaskRow before, TaskRow after, String actor) {
        List<RunRow> ahead = ctx.store().runs().lockFiredAhead(tx, before.id());
        if (ahead.isEmpty()) {
            return "";
        }
        TaskDefinition def = after.definition();
        boolean keep = Objects.equals(before.definition().trigger(), def.trigger()) && def.admitsBySlotAlone();
        for (RunRow run : ahead) {
            if (keep) {
                ctx.store()
                        .runs()
                        .repoint(
                                tx,
                                run.id(),
                                after.version(),
                                def.group(),
                                def.policy().maxAttempts());
            } else {
                ctx.store()
                        .runs()
                        .move(
                                tx,
                                Move.of(run.id(), RunState.READY, RunState.CANCELED)
                                        .finished()
                                        .event(
                                                EventType.CANCELED,
                                                actor,
                                                ctx.nodeId(),
                                                "task edited before the slot " + run.scheduledAt() + " (version "
                                                        + after.version()
                                                        + " changes the trigger or needs the slot's own admission)"));
            }
        }
        return "; " + ahead.size() + (ahead.size() == 1 ? " run" : " runs") + " created ahead of the slot "
                + (keep ? "now run" + (ahead.size() == 1 ? "s" : "") + " this version" : "canceled");
    }

    /**
     * Pauses or resumes. A paused task fires nothing; on resume its {@code next_fire_at} is where
     * it was, so the slots missed meanwhile go through the misfire policy (and each leaves an event).
     */
    public TaskRow setPaused(String name, boolean paused, String actor) {
        Store store = ctx.store();
        TaskRow row = store.tx(tx -> {
            TaskRow current = store.tasks().lock(tx, name).orElseThrow(() -> notFound(name));
            if (current.paused() == paused) {
                return current;
            }
            TaskRow t = store.tasks().setEnabled(tx, current, !paused, actor);
            List<Long> canceled = new ArrayList<>();
            if (paused) {
                // A run created ahead of its slot has not started: the pause withdraws it, and says so on the run and
                // the task.
                for (RunRow run : store.runs().lockFiredAhead(tx, current.id())) {
                    String why = "canceled by " + actor + ": task paused before its slot " + run.scheduledAt();
                    store.runs()
                            .move(
                                    tx,
                                    Move.of(run.id(), RunState.READY, RunState.CANCELED)
                                            .finished()
                                            .set(Move.Column.MESSAGE, why)
                                            .event(EventType.CANCELED, actor, ctx.nodeId(), why));
                    canceled.add(run.id());
                }
            }
            String what = paused
                    ? "paused"
                            + (canceled.isEmpty()
                                    ? ""
                                    : "; canceled " + (canceled.size() == 1 ? "run " : "runs ")
                                            + canceled.stream()
                                                    .map(String::valueOf)
                                                    .collect(Collectors.joining(", ")) + ", created ahead of "
                                            + (canceled.size() == 1 ? "its slot" : "their slots"))
                    : "resumed; missed slots follow misfire policy "
                            + t.definition().policy().misfire();
            store.events()
                    .append(
                            tx,
                            new NewEvent(
                                    t.id(),
                                    t.name(),
                                    paused ? EventType.TASK_PAUSED : EventType.TASK_RESUMED,
                                    actor,
                                    ctx.nodeId(),
                                    what,
                                    Map.of("version", t.version())));
            return t;
        });
        ctx.signals().tasksChanged();
        return row;
    }

    /** Deletes a task: its waiting runs are canceled, running ones finish; history stays. */
    public void delete(String name, String actor) {
        Store store = ctx.store();
        store.tx(tx -> {
            TaskRow current = store.tasks().lock(tx, name).orElseThrow(() -> notFound(name));
            List<String> dependents = DependencyChecks.dependentsOf(tx, store, name);
            if (!dependents.isEmpty()) {
                throw new ConflictException("task " + name + " is in the dependsOn of " + String.join(", ", dependents)
                        + "; remove it there first");
            }
            store.runs().cancelWaiting(tx, current.id(), actor, ctx.nodeId(), "task " + name + " was deleted");
            gate.canaries().taskDeleted(tx, current, actor);
            store.tasks().delete(tx, current, actor);
            store.dependencies().setUpstreams(tx, current.id(), List.of());
            store.events()
                    .append(
                            tx,
                            new NewEvent(
                                    current.id(),
                                    name,
                                    EventType.TASK_DELETED,
                                    actor,
                                    ctx.nodeId(),
                                    "deleted at version " + current.version(),
                                    Map.of("version", current.version())));
            return null;
        });
        ctx.signals().tasksChanged();
    }

    /**
     * Creates a run now, outside the schedule: by an event ({@code POST /api/trigger}) or by hand.
     * Parameters are checked against the task's templates first: a run that could not render
     * is refused here, not failed later. See {@link Triggers} for how triggers are admitted.
     */
    public long trigger(String name, Map<String, Object> params, Cause cause, String actor) {
        return trigger(name, params, cause, actor, false);
    }

    /** As above; {@code force} runs it even if its idempotency key is already done. */
    public long trigger(String name, Map<String, Object> params, Cause cause, String actor, boolean force) {
        return trigger(name, params, cause, actor, force, null).instanceId();
    }

    /** What a trigger made: its run, and whether an earlier request with the same {@link TriggerKey} made it. */
    public record Triggered(long instanceId, boolean duplicate) {}

    /**
     * As above; with a {@code key} (null: none), the same key for the same task within the idempotency window is
     * answered with the run the first request made, never a second one, and another request under it is refused
     * ({@link KeyReusedException}).
     */
    public Triggered trigger(
            String name, Map<String, Object> params, Cause cause, String actor, boolean force, TriggerKey key) {
        return trigger(name, params, cause, actor, force, key, null);
    }

    /**
     * As above; {@code audit} (null: none) is the audit entry of the request, written in the transaction that creates
     * the run, with the task's team, the run and the status filled in: a run and its entry commit together.
     */
    public Triggered trigger(
            String name,
            Map<String, Object> params,
            Cause cause,
            String actor,
            boolean force,
            TriggerKey key,
            Entry audit) {
        return triggers.trigger(name, params, cause, actor, force, key, audit);
    }

    /**
     * The parameters a run of {@code def} gets from {@code params}: checked against its declarations (undeclared,
     * missing, mistyped and out-of-range values are refused, defaults filled in), then rendered into every template,
     * so that a run that could not start is refused here, naming {@code params.NAME}, not failed later.
     */
    static Map<String, Object> checkParams(TaskDefinition def, Map<String, Object> params, Instant now) {
        for (String name : params.keySet()) {
            if (!Templates.isParameterName(name)) {
                throw new ValidationException(
                        "params",
                        "a parameter's name may hold only letters, digits, '_', '.' and '-'" + " (at most 100): "
                                + name);
            }
        }
        Map<String, Object> checked = def.params().check(params);
        TemplateContext tc =
                new TemplateContext(def.taskName(), now, def.trigger().timezone(), checked, 0, 1, "check");
        try {
            WorkRenderer.check(def, tc);
            if (def.policy().idempotencyKey() != null) {
                Templates.render(def.policy().idempotencyKey(), Target.KEY, tc);
            }
        } catch (TemplateException e) {
            throw new ValidationException(e.parameter() == null ? "params" : "params." + e.parameter(), e.getMessage());
        }
        return checked;
    }

    /**
     * An idempotency key names the business unit of work (a date, an order id), known before the
     * run exists: not the run, its attempt or request id; and a scheduled run has no
     * parameters to put in it.
     */
    static void checkIdempotencyKey(TaskDefinition def) {
        String key = def.policy().idempotencyKey();
        if (key == null) {
            return;
        }
        for (String v : List.of("instanceId", "attempt", "requestId")) {
            if (key.matches(".*\\{\\{\\s*" + v + "\\s*}}.*")) {
                throw new ValidationException(
                        "policy.idempotencyKey",
                        "{{" + v + "}} is not known when a run is admitted;"
                                + " use what names the work, e.g. {{taskName}}:{{date}} or {{params.orderId}}");
            }
        }
        if (def.trigger().isScheduled() && key.matches(".*\\{\\{\\s*params\\..*")) {
            throw new ValidationException(
                    "policy.idempotencyKey",
                    "a " + def.trigger().type()
                            + " task's scheduled runs have no parameters; use {{taskName}}:{{date}} or similar");
        }
    }

    static Instant firstSlotAfter(TaskDefinition def, Instant now) {
        return Schedules.of(def.trigger()).nextAfter(now).orElse(null);
    }

    static NotFoundException notFound(String name) {
        return new NotFoundException("no task named " + name);
    }
}
