package dev.ax.scheduler;

import dev.ax.domain.policy.Catchup;
import dev.ax.domain.run.Cause;
import dev.ax.domain.run.EventType;
import dev.ax.domain.run.RunState;
import dev.ax.domain.schedule.Schedules;
import dev.ax.domain.task.TaskDefinition;
import dev.ax.domain.task.Trigger;
import dev.ax.store.NewEvent;
import dev.ax.store.NewRun;
import dev.ax.store.Store;
import dev.ax.store.TaskRow;
import dev.ax.store.TaskStore;
import dev.ax.store.Tx;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns due slots into runs. One {@link #tick} claims a batch of due tasks (row locks,
 * SKIP LOCKED, the database's clock), plans each task's slots with {@link Catchup}, inserts one
 * run per slot to fire — keyed by (task, slot), so a second insert for the same slot is
 * impossible — records every missed slot, and moves the task's {@code next_fire_at} on, all in
 * one transaction. A task that {@link dev.ax.domain.task.TaskDefinition#admitsBySlotAlone fires ahead} has its runs created up to
 * {@code fireAhead} before their slot: they wait READY with {@code ready_at} = the slot, so the time
 * it takes to create a thousand runs due at the same second is not taken from their start.
 * Tasks that admit a run by its slot alone have their runs written together
 * ({@code fireTogether}); the others go through the concurrency gate one task at a time.
 *
 * <p>"Is something RUNNING?" is never asked here: that question fired a job every scan for four
 * hours in the duplicate-run incident. Whether a slot fired is a fact in the unique index.
 */
public final class Firing {
    private static final Logger LOG = LoggerFactory.getLogger(Firing.class);

    private final NodeContext ctx;
    private final AtomicLong fired = new AtomicLong();
    private final AtomicLong duplicatesPrevented = new AtomicLong();

    private final ConcurrencyGate gate;

    Firing(NodeContext ctx, ConcurrencyGate gate) {
        this.ctx = ctx;
        this.gate = gate;
    }

    /** Fires everything due now; returns the number of runs created. */
    public int tick() {
        int total = 0;
        while (true) {
            Batch b = fireBatch();
            total += b.created;
            if (b.created > 0) {
                ctx.signals().workAvailable();
            }
            if (b.tasks < ctx.config().fireBatch()) {
                return total;
            }
        }
    }

    private record Batch(int tasks, int created) {}

    private Batch fireBatch() {
        Store store = ctx.store();
        try (AutoCloseable ignored = store.db().dialect().claimLock()) {
            return store.tx(tx -> {
                List<TaskRow> due = store.tasks()
                        .lockDue(
                                tx,
                                ctx.config().fireBatch(),
                                ctx.config().fireAhead().toMillis());
                if (due.isEmpty()) {
                    return new Batch(0, 0);
                }
                Instant now = tx.now();
                int created = 0;
                List<Planned> together = new ArrayList<>();
                for (TaskRow task : due) {
                    Planned p = plan(task, now);
                    if (ConcurrencyGate.admitsBySlotAlone(task)) {
                        together.add(p);
                    } else {
                        created += fireTask(tx, p, now);
                    }
                }
                return new Batch(due.size(), created + fireTogether(tx, together, now));
            });
        } catch (Exception e) {
            throw e instanceof RuntimeException re ? re : new IllegalStateException(e);
        }
    }

    /** A locked task, what its slots are, and the run to create for each slot to fire (aligned with {@code plan.fire()}). */
    private record Planned(TaskRow task, Catchup.Plan plan, List<NewRun> runs) {}

    private Planned plan(TaskRow task, Instant now) {
        TaskDefinition def = task.definition();
        // A run fired ahead waits READY for its slot (ready_at), so creating it takes nothing from its start time.
        Duration ahead = def.admitsBySlotAlone() ? ctx.config().fireAhead() : Duration.ZERO;
        Catchup.Plan plan = Catchup.plan(
                Schedules.of(def.trigger()),
                task.nextFireAt(),
                now,
                ahead,
                ctx.config().scanWindow(),
                def.policy().misfire(),
                Catchup.DEFAULT_MAX_SLOTS);
        Cause cause = def.trigger() instanceof Trigger.Interval ? Cause.INTERVAL : Cause.CRON;
        List<NewRun> runs = new ArrayList<>(plan.fire().size());
        for (Catchup.Slot slot : plan.fire()) {
            runs.add(new NewRun(
                    task.id(),
                    task.name(),
                    task.version(),
                    cause,
                    fireKey(slot.at()),
                    slot.at(),
                    Map.of(),
                    RunState.READY,
                    def.policy().maxAttempts(),
                    def.group(),
                    ctx.schedulerActor(),
                    ctx.nodeId(),
                    null,
                    null,
                    lateNote(slot, now, def)));
        }
        return new Planned(task, plan, runs);
    }

    private static String lateNote(Catchup.Slot slot, Instant now, TaskDefinition def) {
        return slot.late()
                ? "missed slot " + slot.at() + " fired "
                        + Duration.between(slot.at(), now).toSeconds() + "s late by misfire policy "
                        + def.policy().misfire()
                : null;
    }

    /** Fires one task's slots through the concurrency gate, which may count, queue, wait or ask. */
    private int fireTask(Tx tx, Planned p, Instant now) {
        TaskRow task = p.task();
        int created = 0;
        for (int i = 0; i < p.runs().size(); i++) {
            if (fired(
                    tx,
                    task,
                    p.plan().fire().get(i),
                    p.runs().get(i),
                    gate.admit(tx, task, p.runs().get(i)))) {
                created++;
            }
        }
        recordSkips(tx, task, task.definition(), p.plan(), now);
        if (!ctx.store().tasks().advance(tx, task.id(), task.version(), p.plan().nextFireAt())) {
            throw new IllegalStateException("task " + task.name() + " changed while locked for firing");
        }
        return created;
    }

    /**
     * Fires the slots of tasks whose runs need no look at the database to admit
     * ({@link ConcurrencyGate#admitsBySlotAlone}) together: their runs and CREATED events in one
     * statement, their tasks moved on in one batch, where one task at a time took two round trips
     * per task — at 10,000 tasks due every second, more than anything but commits. The same
     * transaction as the rest of the batch, so a crash leaves neither a run without its task
     * moved on nor the other way round.
     */
    private int fireTogether(Tx tx, List<Planned> tasks, Instant now) {
        if (tasks.isEmpty()) {
            return 0;
        }
        List<ConcurrencyGate.Admission> admissions = new ArrayList<>();
        for (Planned p : tasks) {
            p.runs().forEach(run -> admissions.add(new ConcurrencyGate.Admission(p.task(), run)));
        }
        List<Optional<Long>> ids = gate.admitAll(tx, admissions);
        int created = 0;
        int at = 0;
        List<TaskStore.Advance> advances = new ArrayList<>(tasks.size());
        for (Planned p : tasks) {
            for (int i = 0; i < p.runs().size(); i++, at++) {
                if (fired(tx, p.task(), p.plan().fire().get(i), p.runs().get(i), ids.get(at))) {
                    created++;
                }
            }
            recordSkips(tx, p.task(), p.task().definition(), p.plan(), now);
            advances.add(new TaskStore.Advance(
                    p.task().id(), p.task().version(), p.plan().nextFireAt()));
        }
        List<TaskStore.Advance> stale = ctx.store().tasks().advanceAll(tx, advances);
        if (!stale.isEmpty()) {
            String names = tasks.stream()
                    .filter(p -> stale.stream().anyMatch(a -> a.id() == p.task().id()))
                    .map(p -> p.task().name())
                    .collect(Collectors.joining(", "));
            throw new IllegalStateException("task " + names + " changed while locked for firing");
        }
        return created;
    }

    /** Counts a slot's outcome and records a late one; true if it created a run. */
    private boolean fired(Tx tx, TaskRow task, Catchup.Slot slot, NewRun run, Optional<Long> id) {
        if (id.isEmpty()) {
            // The unique (task, fire key) index refused a second run for this slot.
            duplicatesPrevented.incrementAndGet();
            LOG.info("slot {} of task {} already has a run; not fired again", slot.at(), task.name());
            return false;
        }
        fired.incrementAndGet();
        if (slot.late()) {
            ctx.store()
                    .events()
                    .append(
                            tx,
                            new NewEvent(
                                    task.id(),
                                    task.name(),
                                    EventType.MISFIRE_CAUGHT_UP,
                                    ctx.schedulerActor(),
                                    ctx.nodeId(),
                                    run.message(),
                                    Map.of("slot", slot.at().toString(), "instanceId", id.get())));
        }
        return true;
    }

    private void recordSkips(Tx tx, TaskRow task, TaskDefinition def, Catchup.Plan plan, Instant now) {
        for (Instant slot : plan.skipped()) {
            Map<String, Object> data = new LinkedHashMap<>();
            data.put("slot", slot.toString());
            data.put("policy", def.policy().misfire().name());
            ctx.store()
                    .events()
                    .append(
                            tx,
                            new NewEvent(
                                    task.id(),
                                    task.name(),
                                    EventType.MISFIRE_SKIPPED,
                                    ctx.schedulerActor(),
                                    ctx.nodeId(),
                                    "slot " + slot + " missed by "
                                            + Duration.between(slot, now).toSeconds() + "s; not run (misfire policy "
                                            + def.policy().misfire() + ")",
                                    data));
        }
        if (plan.skippedMore() > 0) {
            Map<String, Object> data = new LinkedHashMap<>();
            data.put("count", plan.skippedMore());
            data.put("from", plan.skippedMoreFrom().toString());
            data.put("to", plan.skippedMoreTo().toString());
            data.put("policy", def.policy().misfire().name());
            ctx.store()
                    .events()
                    .append(
                            tx,
                            new NewEvent(
                                    task.id(),
                                    task.name(),
                                    EventType.MISFIRE_SKIPPED,
                                    ctx.schedulerActor(),
                                    ctx.nodeId(),
                                    plan.skippedMore() + " more slots from " + plan.skippedMoreFrom() + " to "
                                            + plan.skippedMoreTo() + " missed; not run (misfire policy "
                                            + def.policy().misfire() + ")",
                                    data));
        }
    }

    /** The fire key of a slot: its instant, ISO-8601 in UTC. Every node computes the same one. */
    public static String fireKey(Instant slot) {
        return slot.toString();
    }

    /** When the loop should look again: the earliest next slot of any enabled task (database time). */
    public Optional<Instant> nextDue() {
        return ctx.store()
                .tx(tx -> ctx.store()
                        .tasks()
                        .earliestNextFire(tx, ctx.config().fireAhead().toMillis()));
    }

    public long firedCount() {
        return fired.get();
    }

    public long duplicatesPrevented() {
        return duplicatesPrevented.get();
    }
}
