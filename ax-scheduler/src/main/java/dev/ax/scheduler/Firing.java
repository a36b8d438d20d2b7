package dev.ax.scheduler;

import dev.ax.domain.policy.Catchup;
import dev.ax.domain.run.Cause;
import dev.ax.domain.run.EventType;
import dev.ax.domain.run.InstanceState;
import dev.ax.domain.schedule.Schedules;
import dev.ax.domain.task.TaskDefinition;
import dev.ax.domain.task.Trigger;
import dev.ax.store.NewEvent;
import dev.ax.store.NewInstance;
import dev.ax.store.Store;
import dev.ax.store.TaskRow;
import dev.ax.store.Tx;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns due slots into instances. One {@link #tick} claims a batch of due tasks (row locks,
 * SKIP LOCKED, the database's clock), plans each task's slots with {@link Catchup}, inserts one
 * instance per slot to fire — keyed by (task, slot), so a second insert for the same slot is
 * impossible — records every missed slot, and moves the task's {@code next_fire_at} on, all in
 * one transaction.
 *
 * <p>"Is something RUNNING?" is never asked here: that question fired a job every scan for four
 * hours in the duplicate-run incident. Whether a slot fired is a fact in the unique index.
 */
public final class Firing {
    private static final Logger LOG = LoggerFactory.getLogger(Firing.class);

    private final NodeContext ctx;
    private final Definitions definitions;
    private final AtomicLong fired = new AtomicLong();
    private final AtomicLong duplicatesPrevented = new AtomicLong();

    private final ConcurrencyGate gate;

    Firing(NodeContext ctx, Definitions definitions, ConcurrencyGate gate) {
        this.ctx = ctx;
        this.definitions = definitions;
        this.gate = gate;
    }

    /** Fires everything due now; returns the number of instances created. */
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

    private record Batch(int tasks, int created) {
    }

    private Batch fireBatch() {
        Store store = ctx.store();
        try (AutoCloseable ignored = store.db().dialect().claimLock()) {
            return store.tx(tx -> {
                List<TaskRow> due = store.tasks().lockDue(tx, ctx.config().fireBatch());
                if (due.isEmpty()) {
                    return new Batch(0, 0);
                }
                Instant now = tx.now();
                int created = 0;
                for (TaskRow task : due) {
                    created += fireTask(tx, task, now);
                }
                return new Batch(due.size(), created);
            });
        } catch (Exception e) {
            throw e instanceof RuntimeException re ? re : new IllegalStateException(e);
        }
    }

    private int fireTask(Tx tx, TaskRow task, Instant now) {
        Store store = ctx.store();
        TaskDefinition def = task.definition();
        definitions.remember(task.id(), task.version(), def);
        Catchup.Plan plan = Catchup.plan(Schedules.of(def.trigger()), task.nextFireAt(), now, ctx.config().scanWindow(),
                def.policy().misfire(), Catchup.DEFAULT_MAX_SLOTS);
        Cause cause = def.trigger() instanceof Trigger.Interval ? Cause.INTERVAL : Cause.CRON;
        int created = 0;
        for (Catchup.Slot slot : plan.fire()) {
            String message = slot.late()
                    ? "missed slot " + slot.at() + " fired " + Duration.between(slot.at(), now).toSeconds() + "s late by misfire policy " + def.policy().misfire()
                    : null;
            Optional<Long> id = gate.admit(tx, task, new NewInstance(task.id(), task.name(), task.version(), cause,
                    fireKey(slot.at()), slot.at(), Map.of(), InstanceState.READY, def.policy().maxAttempts(), def.group(),
                    ctx.schedulerActor(), ctx.nodeId(), null, null, message));
            if (id.isPresent()) {
                created++;
                fired.incrementAndGet();
                if (slot.late()) {
                    store.events().append(tx, new NewEvent(task.id(), task.name(), EventType.MISFIRE_CAUGHT_UP, ctx.schedulerActor(),
                            ctx.nodeId(), message, Map.of("slot", slot.at().toString(), "instanceId", id.get())));
                }
            } else {
                // The unique (task, fire key) index refused a second instance for this slot.
                duplicatesPrevented.incrementAndGet();
                LOG.info("slot {} of task {} already has an instance; not fired again", slot.at(), task.name());
            }
        }
        recordSkips(tx, task, def, plan, now);
        if (!store.tasks().advance(tx, task.id(), task.version(), plan.nextFireAt())) {
            throw new IllegalStateException("task " + task.name() + " changed while locked for firing");
        }
        return created;
    }

    private void recordSkips(Tx tx, TaskRow task, TaskDefinition def, Catchup.Plan plan, Instant now) {
        for (Instant slot : plan.skipped()) {
            Map<String, Object> data = new LinkedHashMap<>();
            data.put("slot", slot.toString());
            data.put("policy", def.policy().misfire().name());
            ctx.store().events().append(tx, new NewEvent(task.id(), task.name(), EventType.MISFIRE_SKIPPED, ctx.schedulerActor(),
                    ctx.nodeId(), "slot " + slot + " missed by " + Duration.between(slot, now).toSeconds() + "s; not run (misfire policy "
                    + def.policy().misfire() + ")", data));
        }
        if (plan.skippedMore() > 0) {
            Map<String, Object> data = new LinkedHashMap<>();
            data.put("count", plan.skippedMore());
            data.put("from", plan.skippedMoreFrom().toString());
            data.put("to", plan.skippedMoreTo().toString());
            data.put("policy", def.policy().misfire().name());
            ctx.store().events().append(tx, new NewEvent(task.id(), task.name(), EventType.MISFIRE_SKIPPED, ctx.schedulerActor(),
                    ctx.nodeId(), plan.skippedMore() + " more slots from " + plan.skippedMoreFrom() + " to " + plan.skippedMoreTo()
                    + " missed; not run (misfire policy " + def.policy().misfire() + ")", data));
        }
    }

    /** The fire key of a slot: its instant, ISO-8601 in UTC. Every node computes the same one. */
    public static String fireKey(Instant slot) {
        return slot.toString();
    }

    /** When the loop should look again: the earliest next slot of any enabled task (database time). */
    public Optional<Instant> nextDue() {
        return ctx.store().tx(tx -> ctx.store().tasks().earliestNextFire(tx));
    }

    public long firedCount() {
        return fired.get();
    }

    public long duplicatesPrevented() {
        return duplicatesPrevented.get();
    }
}
