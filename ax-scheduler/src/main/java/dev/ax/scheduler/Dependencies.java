package dev.ax.scheduler;

import dev.ax.domain.policy.Readiness;
import dev.ax.domain.policy.Readiness.Upstream;
import dev.ax.domain.policy.Readiness.Verdict;
import dev.ax.domain.run.Cause;
import dev.ax.domain.run.EventType;
import dev.ax.domain.run.RunState;
import dev.ax.domain.task.Dependency;
import dev.ax.domain.task.DependencyPolicy;
import dev.ax.domain.task.TaskDefinition;
import dev.ax.store.DependencyStore;
import dev.ax.store.DependencyStore.Found;
import dev.ax.store.DependencyStore.Waiting;
import dev.ax.store.Move;
import dev.ax.store.NewRun;
import dev.ax.store.RunRow;
import dev.ax.store.Store;
import dev.ax.store.TaskRow;
import dev.ax.store.Tx;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Task dependencies ({@code dependsOn}). A new run whose dependencies are not met is created
 * WAITING_DEPENDENCY (holding no concurrency slot); it is re-evaluated when an upstream run ends —
 * in the transaction that ends it, because every path that ends a run frees its slot through
 * {@link ConcurrencyGate#release(Tx, TaskRow)}, which calls {@link #upstreamEnded} first. There is
 * no polling for readiness: a timer looks only at deadlines ({@link #expire}).
 *
 * <p>Lock order: the ended run's task row is held; the dependent tasks' rows are locked next (found
 * in {@code ax_task_dependency}, by id), then their waiting runs are read. Parking a new run
 * happens under its own task's lock, so a run parked while its upstream ends is either seen by
 * the release or sees the upstream's success itself: no lost wake-up. Dependencies form no cycle
 * (checked on save), so two transactions never take two task rows in opposite orders through here.
 *
 * <p>The decision itself is the pure {@link Readiness#decide}; this class reads its inputs and
 * applies its verdict.
 */
public final class Dependencies {
    static final int BATCH = 500;
    /** Runs an operator or a policy asked for explicitly do not wait: a retry, a preview, a compensation. */
    private static final Set<Cause> EXEMPT = EnumSet.of(Cause.PREVIEW, Cause.RETRY, Cause.COMPENSATION);

    private final NodeContext ctx;
    private final ConcurrencyGate gate;
    /** Set while re-evaluating: a release that the re-evaluation itself causes does not start another one. */
    private final ThreadLocal<Boolean> busy = ThreadLocal.withInitial(() -> false);

    Dependencies(NodeContext ctx, ConcurrencyGate gate) {
        this.ctx = ctx;
        this.gate = gate;
    }

    /** What a waiting run waits for, for the API and the console: one entry per dependency. */
    public record WaitingFor(
            String task, String scope, String key, boolean met, Long instanceId, RunState state, String text) {}

    // ---- admission ----

    /** Null when the run does not wait (no dependsOn, or an exempt cause); otherwise the readiness of a new run. */
    Readiness check(Tx tx, TaskRow task, NewRun run) {
        DependencyPolicy deps = task.definition().dependencies();
        if (deps.isEmpty() || EXEMPT.contains(run.cause())) {
            return null;
        }
        LocalDate date = businessDate(task.definition(), run.scheduledAt());
        return evaluate(tx, task.id(), task.definition(), run.scheduledAt(), date, false);
    }

    /** Creates a run whose dependencies are not met: WAITING_DEPENDENCY, or at once SKIPPED / FAILED when the policy says so. */
    Optional<Long> park(Tx tx, TaskRow task, NewRun n, Readiness readiness) {
        Store store = ctx.store();
        String message = n.message() == null ? readiness.reason() : n.message() + "; " + readiness.reason();
        Optional<Long> id = store.runs()
                .create(
                        tx,
                        new NewRun(
                                n.taskId(),
                                n.taskName(),
                                n.taskVersion(),
                                n.cause(),
                                n.fireKey(),
                                n.scheduledAt(),
                                n.params(),
                                RunState.WAITING_DEPENDENCY,
                                n.maxAttempts(),
                                n.group(),
                                n.actor(),
                                n.nodeId(),
                                n.parentId(),
                                n.rootId(),
                                message,
                                n.businessDate()));
        if (id.isEmpty()) {
            return id;
        }
        Instant now = tx.now();
        // A run created after its slot (a backfill, a catch-up) gets the whole wait from when it was created.
        Instant from = n.scheduledAt().isAfter(now) ? n.scheduledAt() : now;
        store.dependencies()
                .setDeadline(
                        tx, id.get(), from.plus(task.definition().dependencies().waitDeadline()));
        store.runs().setMessage(tx, id.get(), message);
        if (readiness.verdict() != Verdict.WAIT && apply(tx, task, id.get(), readiness)) {
            upstreamEnded(tx, task); // ended at once (SKIP / FAIL): its own dependents may decide now too
        }
        return id;
    }

    /**
     * {@code run} with its business date when another task depends on its task (sameDate matches
     * on it, by an index of dated runs only). The runs of a task nothing depends on carry none: a
     * dependency added later finds them by their slot ({@link DependencyStore#undatedBetween}).
     */
    static NewRun dated(TaskRow task, NewRun run) {
        return task.hasDependents() ? run.withBusinessDate(businessDate(task.definition(), run.scheduledAt())) : run;
    }

    /** The business date of a run: its scheduled time in its task's zone, the date that {@code {{date}}} renders. */
    static LocalDate businessDate(TaskDefinition def, Instant scheduledAt) {
        return LocalDate.ofInstant(scheduledAt, def.trigger().timezone());
    }

    // ---- release ----

    /**
     * A run of {@code ended} ended (or its task changed): re-evaluates the runs that wait on it.
     * Called with {@code ended}'s row locked, inside the transaction that ended the run.
     */
    void upstreamEnded(Tx tx, TaskRow ended) {
        if (!ended.hasDependents() || busy.get()) {
            // Nothing waits for this task: known from its row, read by the statement that locked it.
            return;
        }
        busy.set(true);
        try {
            dependentsOf(tx, ended.name(), new LinkedHashSet<>());
        } finally {
            busy.set(false);
        }
    }

    private void dependentsOf(Tx tx, String taskName, Set<String> seen) {
        Store store = ctx.store();
        if (!seen.add(taskName)) {
            return;
        }
        // The dependent task's row is locked BEFORE its waiting runs are read: a run being parked
        // right now (under that lock, having seen this upstream unfinished) is then seen here.
        for (long taskId : store.dependencies().dependentTaskIds(tx, taskName)) {
            TaskRow task = store.tasks().lockById(tx, taskId).orElse(null);
            if (task == null) {
                continue;
            }
            boolean someEnded = false;
            for (Waiting w : store.dependencies().waitingOfTask(tx, taskId, BATCH)) {
                if (!ctx.store()
                        .tasks()
                        .definition(tx, taskId, w.run().taskVersion())
                        .dependencies()
                        .waitsOn(task.name(), taskName)) {
                    continue; // an older version's run that did not wait for this task
                }
                Readiness r = evaluate(tx, w, false);
                someEnded |= apply(tx, task, w.run().id(), r) && r.verdict() != Verdict.READY;
            }
            if (someEnded) {
                seen.remove(task.name());
                dependentsOf(
                        tx, task.name(), seen); // a skipped or failed run is an upstream failure for its own dependents
            }
        }
    }

    /** Ends the runs that waited past their deadline (an alert says so); returns how many. */
    public int expire() {
        Store store = ctx.store();
        int n = 0;
        for (Waiting seen : store.tx(tx -> store.dependencies().pastDeadline(tx, BATCH))) {
            n += store.tx(tx -> {
                TaskRow task = store.tasks().lockById(tx, seen.run().taskId()).orElse(null);
                Waiting w = store.dependencies().find(tx, seen.run().id()).orElse(null);
                if (task == null || w == null || w.run().state() != RunState.WAITING_DEPENDENCY) {
                    return 0;
                }
                busy.set(true);
                try {
                    Readiness r = evaluate(tx, w, true);
                    boolean moved = apply(tx, task, w.run().id(), r);
                    if (moved && r.verdict() != Verdict.READY) {
                        dependentsOf(tx, task.name(), new LinkedHashSet<>());
                    }
                    return moved ? 1 : 0;
                } finally {
                    busy.set(false);
                }
            });
        }
        return n;
    }

    /** Applies a verdict to a waiting run; true if it moved. */
    private boolean apply(Tx tx, TaskRow task, long id, Readiness r) {
        Store store = ctx.store();
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("waitingFor", r.unmet().stream().map(Upstream::describe).toList());
        Move move = switch (r.verdict()) {
            case WAIT -> null;
            case READY ->
                Move.of(id, RunState.WAITING_DEPENDENCY, RunState.BLOCKED)
                        .set(Move.Column.READY_AT, Move.NOW)
                        .set(Move.Column.MESSAGE, r.reason())
                        .event(EventType.DEPENDENCY_MET, ctx.schedulerActor(), ctx.nodeId(), r.reason());
            case SKIP ->
                Move.of(id, RunState.WAITING_DEPENDENCY, RunState.SKIPPED)
                        .finished()
                        .set(Move.Column.MESSAGE, r.reason())
                        .event(EventType.SKIPPED, ctx.schedulerActor(), ctx.nodeId(), r.reason())
                        .data(data);
            case FAIL ->
                Move.of(id, RunState.WAITING_DEPENDENCY, RunState.FAILED)
                        .finished()
                        .set(Move.Column.MESSAGE, r.reason())
                        .event(EventType.FAILED, ctx.schedulerActor(), ctx.nodeId(), r.reason())
                        .data(data);
            case DEADLINE ->
                Move.of(id, RunState.WAITING_DEPENDENCY, RunState.FAILED)
                        .finished()
                        .set(Move.Column.MESSAGE, r.reason())
                        .event(EventType.DEPENDENCY_DEADLINE, ctx.schedulerActor(), ctx.nodeId(), r.reason())
                        .data(data);
        };
        if (move == null) {
            store.runs().setMessage(tx, id, r.reason());
            return false;
        }
        boolean moved = store.runs().move(tx, move);
        if (moved) {
            // READY: queues for a concurrency slot like any new run, the oldest waiting run first.
            // SKIPPED / FAILED: an ended run, so this task's own dependents look again (a chain
            // A → B → C where B gives up tells C at once) and a workflow node moves on.
            gate.release(tx, task);
            if (r.verdict() != Verdict.READY) {
                WorkflowNodeEnds.onRunEnded(ctx, tx, id, move.to());
            }
        }
        return moved;
    }

    // ---- reading what the upstreams do ----

    private Readiness evaluate(Tx tx, Waiting w, boolean deadlinePassed) {
        RunRow run = w.run();
        TaskDefinition def = ctx.store().tasks().definition(tx, run.taskId(), run.taskVersion());
        LocalDate date = w.businessDate() != null ? w.businessDate() : businessDate(def, run.scheduledAt());
        return evaluate(tx, run.taskId(), def, run.scheduledAt(), date, deadlinePassed);
    }

    private Readiness evaluate(
            Tx tx, long taskId, TaskDefinition def, Instant scheduledAt, LocalDate date, boolean deadlinePassed) {
        List<Upstream> ups = new ArrayList<>();
        for (Dependency d : def.dependencies().dependsOn()) {
            ups.add(upstream(tx, taskId, d, scheduledAt, date));
        }
        return Readiness.decide(ups, def.dependencies().onUpstreamFailure(), deadlinePassed);
    }

    private Upstream upstream(Tx tx, long selfId, Dependency d, Instant scheduledAt, LocalDate date) {
        DependencyStore deps = ctx.store().dependencies();
        if (d.scope() == Dependency.Scope.PREVIOUS_SLOT) {
            Optional<Found> prev = decisive(deps.previousSlot(tx, selfId, scheduledAt));
            // The first run of a task has no previous slot to wait for.
            return prev.map(f -> new Upstream(d, "before " + scheduledAt, f.instanceId(), f.state()))
                    .orElseGet(() ->
                            new Upstream(d, "before " + scheduledAt + ": the first slot", null, RunState.SUCCESS));
        }
        Optional<TaskRow> up = ctx.store().tasks().find(tx, d.task());
        if (up.isEmpty()) {
            return new Upstream(
                    d,
                    (d.scope() == Dependency.Scope.SAME_DATE ? date.toString() : "") + " (no such task)",
                    null,
                    null);
        }
        long upId = up.get().id();
        if (d.scope() == Dependency.Scope.SAME_DATE) {
            // Dated runs, and runs from before anything depended on the upstream (or before V21): by their slot in its
            // zone.
            ZoneId zone = up.get().definition().trigger().timezone();
            List<Found> onDate = newestFirst(
                    deps.onDate(tx, upId, date),
                    deps.undatedBetween(
                            tx,
                            upId,
                            date.atStartOfDay(zone).toInstant(),
                            date.plusDays(1).atStartOfDay(zone).toInstant()));
            return decisive(onDate)
                    .map(f -> new Upstream(d, date.toString(), f.instanceId(), f.state()))
                    .orElseGet(() -> new Upstream(d, date.toString(), null, null));
        }
        Instant since = scheduledAt.minus(d.window());
        String key = "since " + since;
        return deps.successSince(tx, upId, since)
                .or(() -> decisive(deps.since(tx, upId, since)))
                .map(f -> new Upstream(d, key, f.instanceId(), f.state()))
                .orElseGet(() -> new Upstream(d, key, null, null));
    }

    /** Two lists of runs, each newest first, as one (a run is in one of them only). */
    private static List<Found> newestFirst(List<Found> a, List<Found> b) {
        if (b.isEmpty()) {
            return a;
        }
        List<Found> all = new ArrayList<>(a);
        all.addAll(b);
        all.sort(Comparator.comparingLong(Found::instanceId).reversed());
        return all;
    }

    private static Optional<Found> decisive(List<Found> newestFirst) {
        return Readiness.decisive(newestFirst.stream()
                        .map(f -> new Readiness.Run(f.instanceId(), f.state()))
                        .toList())
                .map(r -> new Found(r.id(), r.state()));
    }

    /** What a run waits for, live; empty when its task has no dependencies. */
    public List<WaitingFor> waitingFor(long instanceId) {
        return ctx.store().tx(tx -> waitingFor(tx, instanceId));
    }

    /** As {@link #waitingFor(long)}, inside the caller's transaction. */
    public List<WaitingFor> waitingFor(Tx tx, long instanceId) {
        Waiting w = ctx.store().dependencies().find(tx, instanceId).orElse(null);
        if (w == null || w.run().state() != RunState.WAITING_DEPENDENCY) {
            return List.of();
        }
        TaskDefinition def =
                ctx.store().tasks().definition(tx, w.run().taskId(), w.run().taskVersion());
        LocalDate date = w.businessDate() != null
                ? w.businessDate()
                : businessDate(def, w.run().scheduledAt());
        List<WaitingFor> out = new ArrayList<>();
        for (Dependency d : def.dependencies().dependsOn()) {
            Upstream u = upstream(tx, w.run().taskId(), d, w.run().scheduledAt(), date);
            out.add(new WaitingFor(
                    d.task(), d.scope().wireName(), u.key(), u.met(), u.instanceId(), u.state(), u.describe()));
        }
        return out;
    }
}
