package dev.ax.scheduler;

import dev.ax.domain.run.Cause;
import dev.ax.domain.run.RunState;
import dev.ax.domain.task.TaskDefinition;
import dev.ax.domain.task.ValidationException;
import dev.ax.scheduler.Tasks.Triggered;
import dev.ax.store.AuditStore.Entry;
import dev.ax.store.NewRun;
import dev.ax.store.Store;
import dev.ax.store.TaskRow;
import dev.ax.store.Tx;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Runs made now, outside the schedule ({@link Tasks#trigger}): admitted one by one under the task's lock, or, for
 * tasks whose admission depends on the slot alone, in groups that share one transaction ({@link GroupCommit}). A
 * keyed trigger ({@link TriggerKey}) always goes alone: its key is written in the transaction of its run. The
 * request's audit entry, when there is one, commits with the run.
 *
 * <p>A keyed trigger always takes the single way ({@link #admitTriggered}), never a group: on PostgreSQL its key's
 * insert waits for any other transaction holding the same key. In a group, one caller's retry would hold every other
 * trigger of the group behind it, and a duplicate or a refused key would have to be undone inside a transaction that
 * writes the others' runs. A keyed trigger costs one commit of its own; unkeyed triggers are grouped.
 */
final class Triggers {
    private final NodeContext ctx;
    private final ConcurrencyGate gate;

    Triggers(NodeContext ctx, ConcurrencyGate gate) {
        this.ctx = ctx;
        this.gate = gate;
    }

    /** {@link Tasks#trigger(String, Map, Cause, String, boolean, TriggerKey, Entry)}: the run made, or found again. */
    Triggered trigger(
            String name,
            Map<String, Object> params,
            Cause cause,
            String actor,
            boolean force,
            TriggerKey key,
            Entry audit) {
        // Guessed from the task's last trigger; a wrong guess is found under the lock and taken again the other way.
        boolean shared = sharedAdmission.contains(name);
        Triggered t = shared && !force && key == null
                ? triggerTogether(new Trigger(name, params, cause, actor, audit))
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
    private record Trigger(String name, Map<String, Object> params, Cause cause, String actor, Entry audit) {}

    /** The request's audit entry for the run it made ({@code status} 202) or found again (200, a duplicate key). */
    private static Entry audited(Entry template, TaskRow task, long runId, boolean duplicate) {
        return new Entry(
                template.actor(),
                template.via(),
                task.definition().team(),
                template.address(),
                template.action(),
                "task:" + task.name(),
                "ok",
                duplicate ? 200 : 202,
                duplicate ? "run " + runId + " (the key's first request made it)" : "run " + runId,
                null);
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
    private final GroupCommit<Trigger, Admitted> triggers =
            new GroupCommit<>(this::admitTogether, TRIGGER_WRITERS, 200);

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
                    answers[i] = new Admitted(null, Tasks.notFound(t.name()));
                } else if (!ConcurrencyGate.admitsBySlotAlone(task)) {
                    answers[i] = Admitted.NEEDS_EXCLUSIVE_LOCK;
                } else {
                    try {
                        Map<String, Object> params = Tasks.checkParams(task.definition(), t.params(), now);
                        NewRun run = triggeredRun(task, params, t.cause(), t.actor(), now, false);
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
    private Triggered admitTriggered(
            String name,
            Map<String, Object> params,
            Cause cause,
            String actor,
            boolean force,
            TriggerKey key,
            boolean shared,
            Entry audit) {
        Store store = ctx.store();
        return store.tx(tx -> {
            TaskRow task = (shared
                            ? store.tasks().lockShared(tx, name)
                            : store.tasks().lock(tx, name))
                    .orElseThrow(() -> Tasks.notFound(name));
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
            Map<String, Object> checked = Tasks.checkParams(task.definition(), params, now);
            long id = gate.admit(tx, task, triggeredRun(task, checked, cause, actor, now, force), force)
                    .orElseThrow();
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
        return ctx.store()
                .triggerKeys()
                .claim(tx, task.id(), key.value(), hash, ctx.config().idempotencyWindow())
                .map(earlier -> {
                    if (!earlier.requestHash().equals(hash)) {
                        throw new KeyReusedException("this Idempotency-Key was used at " + earlier.createdAt()
                                + " for a different request to task "
                                + task.name() + " (other params or force; it made run " + earlier.instanceId()
                                + "); send a new key with a new request");
                    }
                    return earlier.instanceId();
                });
    }

    /** A run created now, outside the schedule, under a fire key of its own. */
    private NewRun triggeredRun(
            TaskRow task, Map<String, Object> params, Cause cause, String actor, Instant now, boolean force) {
        TaskDefinition def = task.definition();
        return new NewRun(
                task.id(),
                task.name(),
                task.version(),
                cause,
                cause.wireName() + ":" + UUID.randomUUID(),
                now,
                params,
                RunState.READY,
                def.policy().maxAttempts(),
                def.group(),
                actor,
                ctx.nodeId(),
                null,
                null,
                "triggered by " + actor + (force ? " (force)" : ""));
    }
}
