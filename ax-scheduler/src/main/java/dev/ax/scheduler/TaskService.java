package dev.ax.scheduler;

import dev.ax.domain.run.Cause;
import dev.ax.domain.run.EventType;
import dev.ax.domain.run.InstanceState;
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
import dev.ax.store.InstanceRow;
import dev.ax.store.Move;
import dev.ax.store.NewEvent;
import dev.ax.store.NewInstance;
import dev.ax.store.Store;
import dev.ax.store.TaskRow;
import dev.ax.store.TaskStore;
import dev.ax.store.Tx;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

/**
 * What people and services do to tasks: create, edit, pause, resume, delete, trigger. Each
 * change is one transaction with its version row and its event; triggers that arrive together
 * share one (see {@link #triggers}). Input is validated completely before anything is written.
 */
public final class TaskService {
    private final NodeContext ctx;
    private final Definitions definitions;
    private final ConcurrencyGate gate;

    TaskService(NodeContext ctx, Definitions definitions, ConcurrencyGate gate) {
        this.ctx = ctx;
        this.definitions = definitions;
        this.gate = gate;
    }

    /** A stored task with the warnings its definition raised (e.g. an unconfigured alert channel). */
    public record Saved(TaskRow task, List<String> warnings, boolean created) {
    }

    public Saved create(Object json, String actor) {
        ParsedTask parsed = TaskDefinitionCodec.parse(json, ctx.config().channels());
        TaskDefinition def = parsed.definition();
        checkIdempotencyKey(def);
        Store store = ctx.store();
        TaskRow row = store.tx(tx -> {
            if (store.tasks().find(tx, def.taskName()).isPresent()) {
                throw new ConflictException("task " + def.taskName() + " already exists; use PUT /api/tasks/" + def.taskName() + " to change it");
            }
            DependencyChecks.check(tx, store, def);
            SecretChecks.requireSet(tx, store, def);
            Teams.requireExists(tx, store, def.team(), "team");
            TaskRow t = store.tasks().insert(tx, def, firstSlotAfter(def, tx.now()), actor);
            store.dependencies().setUpstreams(tx, t.id(), DependencyChecks.edges(def));
            store.events().append(tx, new NewEvent(t.id(), t.name(), EventType.TASK_CREATED, actor, ctx.nodeId(),
                    "version 1 created", Map.of("version", 1)));
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
            throw new ValidationException("taskName", "must be '" + name + "' (the name in the URL); rename by creating a new task");
        }
        Store store = ctx.store();
        TaskRow row = store.tx(tx -> {
            TaskRow current = store.tasks().lock(tx, name).orElseThrow(() -> notFound(name));
            DependencyChecks.check(tx, store, def);
            SecretChecks.requireSet(tx, store, def);
            Teams.requireExists(tx, store, def.team(), "team");
            gate.canaries().refuseEdit(tx, current);
            Instant next = Objects.equals(current.definition().trigger(), def.trigger())
                    ? current.nextFireAt() : firstSlotAfter(def, tx.now());
            TaskRow t = store.tasks().update(tx, current, def, next, actor);
            store.dependencies().setUpstreams(tx, t.id(), DependencyChecks.edges(def));
            String ahead = firedAhead(tx, current, t, actor);
            store.events().append(tx, new NewEvent(t.id(), t.name(), EventType.TASK_UPDATED, actor, ctx.nodeId(),
                    "version " + t.version() + ahead, Map.of("version", t.version())));
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
        List<InstanceRow> ahead = ctx.store().instances().lockFiredAhead(tx, before.id());
        if (ahead.isEmpty()) {
            return "";
        }
        TaskDefinition def = after.definition();
        boolean keep = Objects.equals(before.definition().trigger(), def.trigger()) && TaskStore.firesAhead(def);
        for (InstanceRow run : ahead) {
            if (keep) {
                ctx.store().instances().repoint(tx, run.id(), after.version(), def.group(), def.policy().maxAttempts());
            } else {
                ctx.store().instances().move(tx, Move.of(run.id(), InstanceState.READY, InstanceState.CANCELED).finished()
                        .event(EventType.CANCELED, actor, ctx.nodeId(), "task edited before the slot " + run.scheduledAt()
                                + " (version " + after.version() + " changes the trigger or needs the slot's own admission)"));
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
                // A run created ahead of its slot has not started: the pause withdraws it, and says so on the run and the task.
                for (InstanceRow run : store.instances().lockFiredAhead(tx, current.id())) {
                    String why = "canceled by " + actor + ": task paused before its slot " + run.scheduledAt();
                    store.instances().move(tx, Move.of(run.id(), InstanceState.READY, InstanceState.CANCELED).finished()
                            .set(Move.Column.MESSAGE, why).event(EventType.CANCELED, actor, ctx.nodeId(), why));
                    canceled.add(run.id());
                }
            }
            String what = paused ? "paused" + (canceled.isEmpty() ? "" : "; canceled " + (canceled.size() == 1 ? "run " : "runs ")
                    + canceled.stream().map(String::valueOf).collect(Collectors.joining(", ")) + ", created ahead of "
                    + (canceled.size() == 1 ? "its slot" : "their slots"))
                    : "resumed; missed slots follow misfire policy " + t.definition().policy().misfire();
            store.events().append(tx, new NewEvent(t.id(), t.name(), paused ? EventType.TASK_PAUSED : EventType.TASK_RESUMED,
                    actor, ctx.nodeId(), what, Map.of("version", t.version())));
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
            store.instances().cancelWaiting(tx, current.id(), actor, ctx.nodeId(), "task " + name + " was deleted");
            gate.canaries().taskDeleted(tx, current, actor);
            store.tasks().delete(tx, current, actor);
            store.dependencies().setUpstreams(tx, current.id(), List.of());
            store.events().append(tx, new NewEvent(current.id(), name, EventType.TASK_DELETED, actor, ctx.nodeId(),
                    "deleted at version " + current.version(), Map.of("version", current.version())));
            return null;
        });
        ctx.signals().tasksChanged();
    }

    /**
     * Creates a run now, outside the schedule: by an event ({@code POST /api/trigger}) or by hand.
     * Parameters are checked against the task's templates first: a run that could not render
     * is refused here, not failed later.
     */
    public long trigger(String name, Map<String, Object> params, Cause cause, String actor) {
        return trigger(name, params, cause, actor, false);
    }

    /** As above; {@code force} runs it even if its idempotency key is already done. */
    public long trigger(String name, Map<String, Object> params, Cause cause, String actor, boolean force) {
        return trigger(name, params, cause, actor, force, null).instanceId();
    }

    /** What a trigger made: its run, and whether an earlier request with the same {@link TriggerKey} made it. */
    public record Triggered(long instanceId, boolean duplicate) {
    }

    /**
     * As above; with a {@code key} (null: none), the same key for the same task within the idempotency window is
     * answered with the run the first request made, never a second one, and another request under it is refused
     * ({@link KeyReusedException}).
     *
     * <p>A keyed trigger always takes the single way ({@link #admitTriggered}), never a group: its key is written in
     * the transaction that creates its run, and on PostgreSQL that insert waits for any other transaction holding the
     * same key. In a group, one caller's retry would hold every other trigger of the group behind it, and a duplicate
     * or a refused key would have to be undone inside a transaction that writes the others' runs. A keyed trigger
     * costs one commit of its own; unkeyed triggers are grouped as before.
     */
    public Triggered trigger(String name, Map<String, Object> params, Cause cause, String actor, boolean force, TriggerKey key) {
        return trigger(name, params, cause, actor, force, key, null);
    }

    /**
     * As above; {@code audit} (null: none) is the audit entry of the request, written in the transaction that creates
     * the run, with the task's team, the run and the status filled in: a run and its entry commit together, and a
     * burst of triggers costs no commit of its own for the audit.
     */
    public Triggered trigger(String name, Map<String, Object> params, Cause cause, String actor, boolean force, TriggerKey key,
                             Entry audit) {
        // Guessed from the task's last trigger; a wrong guess is found under the lock and taken again the other way.
        boolean shared = sharedAdmission.contains(name);
        Triggered t = shared && !force && key == null ? triggerTogether(new Trigger(name, params, cause, actor, audit))
                : admitTriggered(name, params, cause, actor, force, key, shared, audit);
        if (t == null) {
            t = admitTriggered(name, params, cause, actor, force, key, !shared, audit);
        }
        ctx.signals().workAvailable();
        return t;
    }

    /**
     * Tasks whose last trigger found that admitting a run needs no decision under the task's
     * exclusive lock ({@link ConcurrencyGate#admitsBySlotAlone}): their triggers only keep the
     * task from being deleted or edited meanwhile, and are written together.
     */
    private final Set<String> sharedAdmission = ConcurrentHashMap.newKeySet();

    /** One trigger waiting to be written with the others that arrived meanwhile. */
    private record Trigger(String name, Map<String, Object> params, Cause cause, String actor, Entry audit) {
    }

    /** The request's audit entry for the run it made ({@code status} 202) or found again (200, a duplicate key). */
    private static Entry audited(Entry template, TaskRow task, long runId, boolean duplicate) {
        return new Entry(template.actor(), template.via(), task.definition().team(), template.address(), template.action(),
                "task:" + task.name(), "ok", duplicate ? 200 : 202,
                duplicate ? "run " + runId + " (the key's first request made it)" : "run " + runId, null);
    }

    /** What became of one trigger of a group: its run's id, its refusal, or neither (it needs the exclusive lock). */
    private record Admitted(Long id, RuntimeException refused) {
        static final Admitted NEEDS_EXCLUSIVE_LOCK = new Admitted(null, null);
    }

    /**
     * Triggers of tasks that admit by their slot alone are committed in groups ({@link GroupCommit}): the triggers
     * that arrive while a group is written go together in the next transaction, which locks each task once (shared)
     * and writes all their runs and CREATED events in one statement; each caller is answered after the commit. A
     * trigger refused (no such task, parameters that do not render) is refused alone; one whose task now needs the
     * exclusive lock takes the single way. A group whose transaction fails fails each of its triggers, as a single
     * trigger would fail: none is written again behind its caller's back, since a commit that failed may have happened.
     */
    private final GroupCommit<Trigger, Admitted> triggers = new GroupCommit<>(this::admitTogether, TRIGGER_WRITERS, 200);

    /**
     * Groups written at once. Two, not one: a group waiting for a task an edit holds does not stop the triggers of
     * every other task (one writer did as well in the API benchmark; four made smaller groups and cost 15 %).
     */
    static final int TRIGGER_WRITERS = 2;

    /** The run, or null when the task needs the exclusive lock now (nothing written). */
    private Triggered triggerTogether(Trigger trigger) {
        Admitted a = triggers.submit(trigger);
        if (a.id() == null) {
            sharedAdmission.remove(trigger.name()); // needs the exclusive lock now, or is gone
        }
        if (a.refused() != null) {
            throw a.refused();
        }
        return a.id() == null ? null : new Triggered(a.id(), false);
    }

    private List<Admitted> admitTogether(List<Trigger> group) {
        Store store = ctx.store();
        return store.tx(tx -> {
            // Each task locked once, in name order.
            Map<String, Optional<TaskRow>> tasks = new TreeMap<>();
            group.forEach(t -> tasks.put(t.name(), Optional.empty()));
            tasks.replaceAll((name, none) -> store.tasks().lockShared(tx, name));
            Instant now = tx.now();
            Admitted[] answers = new Admitted[group.size()];
            List<ConcurrencyGate.Admission> admissions = new ArrayList<>();
            List<Integer> admitted = new ArrayList<>();
            for (int i = 0; i < group.size(); i++) {
                Trigger t = group.get(i);
                TaskRow task = tasks.get(t.name()).orElse(null);
                if (task == null) {
                    answers[i] = new Admitted(null, notFound(t.name()));
                } else if (!ConcurrencyGate.admitsBySlotAlone(task)) {
                    answers[i] = Admitted.NEEDS_EXCLUSIVE_LOCK;
                } else {
                    try {
                        Map<String, Object> params = checkParams(task.definition(), t.params(), now);
                        NewInstance run = triggeredRun(task, params, t.cause(), t.actor(), now, false);
                        admissions.add(new ConcurrencyGate.Admission(task, run));
                        admitted.add(i);
                    } catch (ValidationException e) {
                        answers[i] = new Admitted(null, e);
                    }
                }
            }
            List<Optional<Long>> ids = admissions.isEmpty() ? List.of() : gate.admitAll(tx, admissions);
            List<Entry> audit = new ArrayList<>();
            for (int k = 0; k < ids.size(); k++) {
                long id = ids.get(k).orElseThrow(); // a new fire key: never taken
                answers[admitted.get(k)] = new Admitted(id, null);
                Trigger t = group.get(admitted.get(k));
                if (t.audit() != null) {
                    audit.add(audited(t.audit(), admissions.get(k).task(), id, false));
                }
            }
            if (!audit.isEmpty()) {
                store.audit().add(tx, audit);
            }
            return Arrays.asList(answers);
        });
    }

    /** One trigger with the task locked shared or exclusively; null (nothing written) when that was the wrong lock. */
    private Triggered admitTriggered(String name, Map<String, Object> params, Cause cause, String actor, boolean force, TriggerKey key,
                                     boolean shared, Entry audit) {
        Store store = ctx.store();
        return store.tx(tx -> {
            TaskRow task = (shared ? store.tasks().lockShared(tx, name) : store.tasks().lock(tx, name)).orElseThrow(() -> notFound(name));
            if (ConcurrencyGate.admitsBySlotAlone(task) != shared) {
                if (shared) {
                    sharedAdmission.remove(name);
                    return null; // needs the exclusive lock: nothing written yet, taken again
                }
                sharedAdmission.add(name); // this time under the exclusive lock anyway; the next one shares
            }
            Optional<Long> earlier = key == null ? Optional.empty() : earlierRun(tx, task, key, params, force);
            if (earlier.isPresent()) {
                if (audit != null) {
                    store.audit().add(tx, List.of(audited(audit, task, earlier.get(), true)));
                }
                return new Triggered(earlier.get(), true);
            }
            Instant now = tx.now();
            Map<String, Object> checked = checkParams(task.definition(), params, now);
            long id = gate.admit(tx, task, triggeredRun(task, checked, cause, actor, now, force), force).orElseThrow();
            if (key != null) {
                store.triggerKeys().bind(tx, task.id(), key.value(), id);
            }
            if (audit != null) {
                store.audit().add(tx, List.of(audited(audit, task, id, false)));
            }
            return new Triggered(id, false);
        });
    }

    /**
     * Takes {@code key} for the run this transaction is about to create (empty); or, when a request with it made a
     * run within the idempotency window, that run, if the request was this one (task, parameters and force).
     */
    private Optional<Long> earlierRun(Tx tx, TaskRow task, TriggerKey key, Map<String, Object> params, boolean force) {
        String hash = TriggerKey.requestHash(task.name(), params, force);
        return ctx.store().triggerKeys().claim(tx, task.id(), key.value(), hash, ctx.config().idempotencyWindow()).map(earlier -> {
            if (!earlier.requestHash().equals(hash)) {
                throw new KeyReusedException("this Idempotency-Key was used at " + earlier.createdAt() + " for a different request to task "
                        + task.name() + " (other params or force; it made instance " + earlier.instanceId()
                        + "); send a new key with a new request");
            }
            return earlier.instanceId();
        });
    }

    /** A run created now, outside the schedule, under a fire key of its own. */
    private NewInstance triggeredRun(TaskRow task, Map<String, Object> params, Cause cause, String actor, Instant now, boolean force) {
        TaskDefinition def = task.definition();
        return new NewInstance(task.id(), task.name(), task.version(), cause, cause.wireName() + ":" + UUID.randomUUID(), now, params,
                InstanceState.READY, def.policy().maxAttempts(), def.group(), actor, ctx.nodeId(), null, null,
                "triggered by " + actor + (force ? " (force)" : ""));
    }

    /**
     * The parameters a run of {@code def} gets from {@code params}: checked against its declarations (undeclared,
     * missing, mistyped and out-of-range values are refused, defaults filled in), then rendered into every template,
     * so that a run that could not start is refused here, naming {@code params.NAME}, not failed later.
     */
    static Map<String, Object> checkParams(TaskDefinition def, Map<String, Object> params, Instant now) {
        for (String name : params.keySet()) {
            if (!Templates.isParameterName(name)) {
                throw new ValidationException("params", "a parameter's name may hold only letters, digits, '_', '.' and '-'"
                        + " (at most 100): " + name);
            }
        }
        Map<String, Object> checked = def.params().check(params);
        TemplateContext tc = new TemplateContext(def.taskName(), now, def.trigger().timezone(), checked, 0, 1, "check");
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
     * run exists: not the instance, its attempt or request id; and a scheduled run has no
     * parameters to put in it.
     */
    static void checkIdempotencyKey(TaskDefinition def) {
        String key = def.policy().idempotencyKey();
        if (key == null) {
            return;
        }
        for (String v : List.of("instanceId", "attempt", "requestId")) {
            if (key.matches(".*\\{\\{\\s*" + v + "\\s*}}.*")) {
                throw new ValidationException("policy.idempotencyKey", "{{" + v + "}} is not known when a run is admitted;"
                        + " use what names the work, e.g. {{taskName}}:{{date}} or {{params.orderId}}");
            }
        }
        if (def.trigger().isScheduled() && key.matches(".*\\{\\{\\s*params\\..*")) {
            throw new ValidationException("policy.idempotencyKey", "a " + def.trigger().type()
                    + " task's scheduled runs have no parameters; use {{taskName}}:{{date}} or similar");
        }
    }

    static Instant firstSlotAfter(TaskDefinition def, Instant now) {
        return Schedules.of(def.trigger()).nextAfter(now).orElse(null);
    }

    private static NotFoundException notFound(String name) {
        return new NotFoundException("no task named " + name);
    }

    public Definitions definitions() {
        return definitions;
    }
}
