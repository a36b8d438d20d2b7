package dev.ax.scheduler;

import dev.ax.domain.policy.BackfillSlots;
import dev.ax.domain.policy.DependencyGraph;
import dev.ax.domain.run.BackfillState;
import dev.ax.domain.run.Cause;
import dev.ax.domain.run.EventType;
import dev.ax.domain.run.RunState;
import dev.ax.domain.schedule.Schedules;
import dev.ax.domain.task.BackfillRequest;
import dev.ax.domain.task.TaskDefinition;
import dev.ax.domain.task.ValidationException;
import dev.ax.store.BackfillStore.BackfillRow;
import dev.ax.store.Move;
import dev.ax.store.NewRun;
import dev.ax.store.RunRow;
import dev.ax.store.Store;
import dev.ax.store.TaskRow;
import dev.ax.store.Tx;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Backfills: run a task for every slot of a date range, at most {@code parallelism} at a time,
 * oldest (or newest) first, through the same concurrency gate and idempotency keys as any run. A
 * backfill is an object (progress, pause, resume, cancel). Its runs use the slot's own fire key,
 * so a backfill and the live schedule can never both run one slot, and repeating a backfill
 * creates nothing new unless {@code reprocess} says so.
 */
public final class Backfills {
    static final Set<RunState> ACTIVE = Set.of(
            RunState.READY,
            RunState.RUNNING,
            RunState.RETRYING,
            RunState.BLOCKED,
            RunState.WAITING_APPROVAL,
            RunState.WAITING_DEPENDENCY);
    static final Set<RunState> REDO_ON_FAILED = Set.of(RunState.FAILED, RunState.TERMINATED, RunState.CANCELED);

    private final NodeContext ctx;
    private final ConcurrencyGate gate;

    Backfills(NodeContext ctx, ConcurrencyGate gate) {
        this.ctx = ctx;
        this.gate = gate;
    }

    /** What would happen to one slot: {@code run}, {@code skip} (it has a run) or {@code rerun}. */
    public record SlotPlan(Instant slot, String action, Long existingInstanceId, RunState existingState) {}

    /**
     * @param backfillId {@code null} for a dry run
     * @param cascaded   with {@code cascade}: the backfills of the dependent tasks, in dependency order
     */
    public record Started(Long backfillId, String taskName, int slots, List<SlotPlan> plan, List<Started> cascaded) {
        public Started {
            cascaded = cascaded == null ? List.of() : List.copyOf(cascaded);
        }
    }

    public record Progress(BackfillRow backfill, Map<RunState, Integer> runs, int pending) {}

    public Started start(String taskName, Map<String, Object> body, String actor) {
        BackfillRequest request = BackfillRequest.parse(body);
        Store store = ctx.store();
        return store.tx(tx -> {
            TaskRow task = store.tasks()
                    .find(tx, taskName)
                    .orElseThrow(() -> new NotFoundException("no task named " + taskName));
            Started first = startOne(tx, task, request, actor, "taskName");
            if (!request.cascade()) {
                return first;
            }
            // Dependency order, and increasing backfill ids: each tick advances an upstream backfill before its
            // dependents.
            List<Started> cascaded = new ArrayList<>();
            for (String name : DependencyGraph.dependents(taskName, DependencyChecks.graph(tx, store))) {
                TaskRow dependent = store.tasks().find(tx, name).orElseThrow();
                cascaded.add(startOne(tx, dependent, request.forDependent(), actor, "cascade"));
            }
            return new Started(first.backfillId(), first.taskName(), first.slots(), first.plan(), cascaded);
        });
    }

    private Started startOne(Tx tx, TaskRow task, BackfillRequest request, String actor, String field) {
        Store store = ctx.store();
        String taskName = task.name();
        TaskDefinition def = task.definition();
        if (!def.trigger().isScheduled()) {
            throw new ValidationException(
                    field,
                    "task " + taskName + " has no schedule (" + def.trigger().type()
                            + " trigger); trigger it with parameters instead");
        }
        // Each slot's run gets these parameters: checked once, here, against the task's declarations.
        Map<String, Object> params = Tasks.checkParams(def, request.params(), tx.now());
        List<Instant> slots;
        try {
            slots = BackfillSlots.of(
                    Schedules.of(def.trigger()),
                    def.trigger().timezone(),
                    request.from(),
                    request.to(),
                    request.newestFirst());
        } catch (IllegalArgumentException e) {
            throw new ValidationException("to", e.getMessage());
        }
        List<SlotPlan> plan = new ArrayList<>();
        for (Instant slot : slots) {
            plan.add(planSlot(tx, task, slot, request.reprocess()));
        }
        if (request.dryRun()) {
            return new Started(null, taskName, slots.size(), plan, List.of());
        }
        long id = store.backfills()
                .insert(
                        tx,
                        task.id(),
                        taskName,
                        BackfillSlots.start(def.trigger().timezone(), request.from()),
                        BackfillSlots.end(def.trigger().timezone(), request.to()),
                        request.parallelism(),
                        request.reprocess(),
                        request.newestFirst(),
                        params,
                        slots.size(),
                        actor);
        return new Started(id, taskName, slots.size(), plan.subList(0, Math.min(plan.size(), 100)), List.of());
    }

    private SlotPlan planSlot(Tx tx, TaskRow task, Instant slot, String reprocess) {
        RunRow existing = ctx.store()
                .runs()
                .findBySlot(tx, task.id(), Firing.fireKey(slot))
                .orElse(null);
        if (existing == null) {
            return new SlotPlan(slot, "run", null, null);
        }
        boolean redo = switch (reprocess) {
            case "all" -> !ACTIVE.contains(existing.state());
            case "failed" -> REDO_ON_FAILED.contains(existing.state());
            default -> false;
        };
        return new SlotPlan(slot, redo ? "rerun" : "skip", existing.id(), existing.state());
    }

    public Progress progress(long id) {
        Store store = ctx.store();
        return store.tx(tx -> {
            BackfillRow b =
                    store.backfills().find(tx, id).orElseThrow(() -> new NotFoundException("no backfill " + id));
            return new Progress(b, store.backfills().progress(tx, id), b.total() - b.nextIndex());
        });
    }

    public Progress pause(long id) {
        return change(id, BackfillState.RUNNING, BackfillState.PAUSED);
    }

    public Progress resume(long id) {
        return change(id, BackfillState.PAUSED, BackfillState.RUNNING);
    }

    /** Cancels the backfill and its runs that have not started. */
    public Progress cancel(long id, String actor) {
        Store store = ctx.store();
        store.tx(tx -> {
            BackfillRow b =
                    store.backfills().lock(tx, id).orElseThrow(() -> new NotFoundException("no backfill " + id));
            if (b.state() == BackfillState.DONE || b.state() == BackfillState.CANCELED) {
                throw new ConflictException("backfill " + id + " is " + b.state());
            }
            store.backfills().setState(tx, id, b.state(), BackfillState.CANCELED);
            TaskRow task = store.tasks().lockById(tx, b.taskId()).orElse(null);
            for (RunRow run : store.backfills().waitingRuns(tx, id)) {
                store.runs()
                        .move(
                                tx,
                                Move.of(run.id(), run.state(), RunState.CANCELED)
                                        .finished()
                                        .event(
                                                EventType.CANCELED,
                                                actor,
                                                ctx.nodeId(),
                                                "backfill " + id + " canceled by " + actor));
            }
            if (task != null) {
                gate.release(tx, task);
            }
            return null;
        });
        return progress(id);
    }

    private Progress change(long id, BackfillState from, BackfillState to) {
        Store store = ctx.store();
        boolean changed = store.tx(tx -> store.backfills().setState(tx, id, from, to));
        if (!changed) {
            Progress p = progress(id);
            throw new ConflictException("backfill " + id + " is " + p.backfill().state() + ", not " + from);
        }
        return progress(id);
    }

    /** Creates the next runs of every running backfill, up to its parallelism; returns how many. */
    int tick() {
        Store store = ctx.store();
        int created = 0;
        for (long id : store.tx(tx -> store.backfills().running(tx, 100))) {
            created += store.tx(tx -> advance(tx, id));
        }
        if (created > 0) {
            ctx.signals().workAvailable();
        }
        return created;
    }

    private int advance(Tx tx, long id) {
        Store store = ctx.store();
        BackfillRow b = store.backfills().lock(tx, id).orElse(null);
        if (b == null || b.state() != BackfillState.RUNNING) {
            return 0;
        }
        TaskRow task = store.tasks().lockById(tx, b.taskId()).orElse(null);
        if (task == null) {
            store.backfills().setState(tx, id, BackfillState.RUNNING, BackfillState.CANCELED);
            return 0;
        }
        Map<RunState, Integer> progress = store.backfills().progress(tx, id);
        int active = ACTIVE.stream().mapToInt(s -> progress.getOrDefault(s, 0)).sum();
        int free = b.parallelism() - active;
        int index = b.nextIndex();
        if (index >= b.total()) {
            if (active == 0) {
                store.backfills().setState(tx, id, BackfillState.RUNNING, BackfillState.DONE);
            }
            return 0;
        }
        List<Instant> slots =
                BackfillSlots.between(Schedules.of(task.definition().trigger()), b.from(), b.to(), b.newestFirst());
        int created = 0;
        while (free > 0 && index < slots.size()) {
            Instant slot = slots.get(index++);
            SlotPlan plan = planSlot(tx, task, slot, b.reprocess());
            if (plan.action().equals("skip")) {
                continue;
            }
            TaskDefinition def = task.definition();
            Map<String, Object> params = new LinkedHashMap<>(b.params());
            String fireKey =
                    plan.action().equals("run") ? Firing.fireKey(slot) : Firing.fireKey(slot) + "#backfill-" + id;
            var instance = gate.admit(
                    tx,
                    task,
                    new NewRun(
                            task.id(),
                            task.name(),
                            task.version(),
                            Cause.BACKFILL,
                            fireKey,
                            slot,
                            params,
                            RunState.READY,
                            def.policy().maxAttempts(),
                            def.group(),
                            b.createdBy(),
                            ctx.nodeId(),
                            plan.existingInstanceId(),
                            plan.existingInstanceId(),
                            "backfill " + id + ": slot " + index + " of " + b.total()));
            if (instance.isPresent()) {
                store.backfills().tag(tx, instance.get(), id);
                created++;
                free--;
            }
        }
        store.backfills().advance(tx, id, index);
        return created;
    }
}
