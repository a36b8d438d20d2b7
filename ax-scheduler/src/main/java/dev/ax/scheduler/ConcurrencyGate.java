package dev.ax.scheduler;

import dev.ax.domain.policy.Overflow;
import dev.ax.domain.policy.Readiness;
import dev.ax.domain.run.Cause;
import dev.ax.domain.run.EventType;
import dev.ax.domain.run.RunState;
import dev.ax.domain.task.Approval;
import dev.ax.domain.task.Policy;
import dev.ax.domain.template.Target;
import dev.ax.domain.template.TemplateContext;
import dev.ax.domain.template.Templates;
import dev.ax.store.Move;
import dev.ax.store.NewRun;
import dev.ax.store.RunRow;
import dev.ax.store.RunStore.Occupancy;
import dev.ax.store.Store;
import dev.ax.store.TaskRow;
import dev.ax.store.Tx;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Invariant 6: at most {@code maxConcurrency} active runs per task, whatever the number of
 * nodes and executors. Every decision — admitting a new run, and filling a freed slot from the
 * queue — is taken while holding the task's row lock, so two nodes never both see a free slot.
 * Active runs are counted from the run table (never a stored counter that could drift).
 *
 * <p>Lock order, everywhere: the task row first, then its run rows.
 */
final class ConcurrencyGate {
    static final List<RunState> ACTIVE =
            List.of(RunState.READY, RunState.RUNNING, RunState.RETRYING, RunState.WAITING_APPROVAL);

    private final NodeContext ctx;
    private final Dependencies dependencies;
    private final Canaries canaries;

    ConcurrencyGate(NodeContext ctx) {
        this(ctx, new Canaries(ctx));
    }

    /** With {@code canaries}, every admitted run is first routed to the stable or the canary version of its task. */
    ConcurrencyGate(NodeContext ctx, Canaries canaries) {
        this.ctx = ctx;
        this.canaries = canaries;
        this.dependencies = new Dependencies(ctx, this);
    }

    /** Task dependencies: runs waiting for upstream runs go through this gate when released. */
    Dependencies dependencies() {
        return dependencies;
    }

    Canaries canaries() {
        return canaries;
    }

    /**
     * Creates a run of a task whose row the caller has locked (shared will do when it
     * {@link #admitsBySlotAlone}), in the state the overflow policy decides.
     * {@code run.state()} is ignored. Empty when the slot already has a run.
     */
    Optional<Long> admit(Tx tx, TaskRow task, NewRun run) {
        return admit(tx, task, run, false);
    }

    /**
     * As {@link #admit(Tx, TaskRow, NewRun)}; with a {@code policy.idempotencyKey}, a run whose
     * rendered key already has a SUCCESS or an active run is created SKIPPED, pointing at that
     * run, unless {@code force}.
     */
    Optional<Long> admit(Tx tx, TaskRow task, NewRun unrouted, boolean force) {
        // Routed to the stable or the canary version, then dated with the row (not by a second
        // UPDATE of it) when a dependent matches on the date.
        NewRun run = Dependencies.dated(task, canaries.route(tx, task, unrouted));
        Store store = ctx.store();
        Policy policy = task.definition().policy();
        String key = idempotencyKey(task, run);
        if (key != null && !force) {
            Optional<RunRow> earlier = store.runs().doneOrActiveWithKey(tx, task.id(), key);
            if (earlier.isPresent()) {
                String why = "idempotency key " + key + " is already "
                        + (earlier.get().state() == RunState.SUCCESS ? "done" : "being done") + " by run "
                        + earlier.get().id();
                Optional<Long> id = store.runs().create(tx, withState(run, RunState.SKIPPED, why));
                id.ifPresent(i -> {
                    store.runs().setRequestKey(tx, i, key);
                    store.events()
                            .appendForRun(
                                    tx,
                                    i,
                                    EventType.DEDUPLICATED,
                                    null,
                                    null,
                                    ctx.schedulerActor(),
                                    ctx.nodeId(),
                                    why,
                                    Map.of(
                                            "key",
                                            key,
                                            "earlierInstanceId",
                                            earlier.get().id()));
                });
                return id;
            }
        }
        // dependsOn: a run whose upstream runs have not succeeded waits (WAITING_DEPENDENCY) before taking a slot.
        Readiness deps = dependencies.check(tx, task, run);
        Optional<Long> admitted = deps != null && deps.verdict() != Readiness.Verdict.READY
                ? dependencies.park(tx, task, run, deps)
                : admitUnderLimit(tx, task, run, policy);
        if (key != null) {
            admitted.ifPresent(i -> store.runs().setRequestKey(tx, i, key));
        }
        return admitted;
    }

    /** The rendered {@code policy.idempotencyKey}, or null when the task has none (the run id is the key then). */
    private static String idempotencyKey(TaskRow task, NewRun run) {
        String template = task.definition().policy().idempotencyKey();
        if (template == null || run.cause() == Cause.PREVIEW) {
            return null;
        }
        return Templates.render(
                template,
                Target.KEY,
                new TemplateContext(
                        run.taskName(),
                        run.scheduledAt(),
                        task.definition().trigger().timezone(),
                        run.params(),
                        0,
                        0,
                        null));
    }

    private Optional<Long> admitUnderLimit(Tx tx, TaskRow task, NewRun run, Policy policy) {
        Store store = ctx.store();
        // ALLOW has no limit: counting a flood of active runs on every admission would only cost.
        Occupancy now = policy.unlimited() ? new Occupancy(0, 0) : store.runs().occupancy(tx, task.id());
        Overflow decision = Overflow.decide(
                policy.overflow(), policy.maxConcurrency(), policy.queueLimit(), now.active(), now.waiting());
        Approval approval = policy.approval();
        RunState state = stateOf(decision, approval);
        Optional<Long> id = store.runs().create(tx, decided(run, state, decision));
        if (id.isEmpty()) {
            return id;
        }
        long newId = id.get();
        if (state == RunState.WAITING_APPROVAL) {
            Approvals.open(ctx, tx, newId, task, approval);
        }
        switch (decision.admission()) {
            case SKIP ->
                note(
                        tx,
                        newId,
                        EventType.OVERLAP_SKIPPED,
                        decision.reason() + "; busy with " + activeIds(tx, task.id(), newId));
            case DROP_QUEUE_FULL -> note(tx, newId, EventType.QUEUE_DROPPED, decision.reason());
            case QUEUE_REPLACING_WAITING -> dropWaiting(tx, task.id(), newId);
            case REPLACE_ACTIVE -> replaceActive(tx, task.id(), newId);
            case RUN -> {}
            case QUEUE -> release(tx, task); // a slot may be free while older runs wait: they go first
        }
        return id;
    }

    private static RunState stateOf(Overflow decision, Approval approval) {
        return switch (decision.admission()) {
            case RUN, REPLACE_ACTIVE -> approval == null ? RunState.READY : RunState.WAITING_APPROVAL;
            case QUEUE, QUEUE_REPLACING_WAITING -> RunState.BLOCKED;
            case SKIP, DROP_QUEUE_FULL -> RunState.SKIPPED;
        };
    }

    /**
     * The run as admitted: in {@code state}, its message saying why. A task without a limit
     * decides nothing, so its runs carry no note of it: a scheduled run with no note of its own
     * is then routine, and its creation is read from its row instead of written as an event.
     */
    private static NewRun decided(NewRun run, RunState state, Overflow decision) {
        if (decision.equals(Overflow.NO_LIMIT)) {
            return withState(run, state, run.message());
        }
        return withState(
                run, state, run.message() == null ? decision.reason() : run.message() + "; " + decision.reason());
    }

    /**
     * True when {@link #admit} would only create a new scheduled run of {@code task} READY, whatever
     * else the database holds: its definition {@linkplain dev.ax.domain.task.TaskDefinition#admitsBySlotAlone
     * admits by slot alone} and no canary rollout routes its runs. Sharding is no exception: a run
     * fans out when claimed, not when admitted.
     */
    static boolean admitsBySlotAlone(TaskRow task) {
        return task.definition().admitsBySlotAlone() && !task.canary();
    }

    /** A new run of a task the caller has locked, for {@link #admitAll}. */
    record Admission(TaskRow task, NewRun run) {}

    /**
     * {@link #admit} for runs of tasks that {@link #admitsBySlotAlone}: the same rows and events,
     * written together (see {@code RunBatches.createAll}). The id of each run created, aligned
     * with {@code runs}; empty where the slot already has a run.
     */
    List<Optional<Long>> admitAll(Tx tx, List<Admission> runs) {
        List<NewRun> rows = new ArrayList<>(runs.size());
        for (Admission a : runs) {
            if (!admitsBySlotAlone(a.task())) {
                throw new IllegalArgumentException(
                        "task " + a.task().name() + " needs a look at the database to admit a run");
            }
            Policy policy = a.task().definition().policy();
            // As admitUnderLimit decides for an unlimited task, which counts nothing.
            Overflow decision = Overflow.decide(policy.overflow(), policy.maxConcurrency(), policy.queueLimit(), 0, 0);
            rows.add(decided(Dependencies.dated(a.task(), a.run()), stateOf(decision, policy.approval()), decision));
        }
        return ctx.store().runBatches().createAll(tx, rows);
    }

    /**
     * Fills the free slots of a task whose row the caller has locked with its waiting runs,
     * oldest first. Called whenever an active run ends; returns how many started.
     */
    int release(Tx tx, TaskRow task) {
        // Every path that ends a run frees its slot here: the runs waiting on this task are re-evaluated first.
        dependencies.upstreamEnded(tx, task);
        Store store = ctx.store();
        Policy policy = task.definition().policy();
        // The common case, nothing waits: one indexed look instead of counting every active run.
        if (!store.runs().hasWaiting(tx, task.id())) {
            return 0;
        }
        Occupancy now = store.runs().occupancy(tx, task.id());
        int free = policy.unlimited() ? now.waiting() : policy.maxConcurrency() - now.active();
        if (free <= 0 || now.waiting() == 0) {
            return 0;
        }
        int started = 0;
        Approval approval = policy.approval();
        RunState next = approval == null ? RunState.READY : RunState.WAITING_APPROVAL;
        for (RunRow waiting : store.runs().ofTaskInStates(tx, task.id(), List.of(RunState.BLOCKED), free)) {
            if (store.runs()
                    .move(
                            tx,
                            Move.of(waiting.id(), RunState.BLOCKED, next)
                                    .set(Move.Column.READY_AT, Move.NOW)
                                    .event(
                                            EventType.UNBLOCKED,
                                            ctx.schedulerActor(),
                                            ctx.nodeId(),
                                            "a slot is free (" + now.active() + " of " + policy.maxConcurrency()
                                                    + " active before)"))) {
                started++;
                if (approval != null) {
                    Approvals.open(ctx, tx, waiting.id(), task, approval);
                }
            }
        }
        if (started > 0) {
            ctx.signals().workAvailable();
        }
        return started;
    }

    /** Locks the task and fills its free slots; for callers that do not hold the lock yet. */
    int release(Tx tx, long taskId) {
        return ctx.store().tasks().lockById(tx, taskId).map(t -> release(tx, t)).orElse(0);
    }

    private void dropWaiting(Tx tx, long taskId, long newId) {
        for (RunRow older :
                ctx.store().runs().ofTaskInStates(tx, taskId, List.of(RunState.BLOCKED), Integer.MAX_VALUE)) {
            if (older.id() != newId
                    && ctx.store()
                            .runs()
                            .move(
                                    tx,
                                    Move.of(older.id(), RunState.BLOCKED, RunState.SKIPPED)
                                            .finished()
                                            .event(
                                                    EventType.QUEUE_DROPPED,
                                                    ctx.schedulerActor(),
                                                    ctx.nodeId(),
                                                    "replaced in the queue by the newer run " + newId
                                                            + " (overflow QUEUE_ONE)")
                                            .data(Map.of("replacedBy", newId)))) {
                WorkflowNodeEnds.onRunEnded(ctx, tx, older.id(), RunState.SKIPPED);
            }
        }
    }

    /** REPLACE: running runs are TERMINATED (their executors kill them at the next heartbeat), waiting ones CANCELED. */
    private void replaceActive(Tx tx, long taskId, long newId) {
        for (RunRow old : ctx.store().runs().ofTaskInStates(tx, taskId, ACTIVE, Integer.MAX_VALUE)) {
            if (old.id() == newId) {
                continue;
            }
            RunState to = old.state() == RunState.RUNNING ? RunState.TERMINATED : RunState.CANCELED;
            if (to == RunState.TERMINATED) { // a sharded run's shards end with it
                ctx.store()
                        .shards()
                        .stopAll(
                                tx, old.id(), "replaced by the newer run " + newId, ctx.schedulerActor(), ctx.nodeId());
            }
            if (ctx.store()
                    .runs()
                    .move(
                            tx,
                            Move.of(old.id(), old.state(), to)
                                    .finished()
                                    .event(
                                            EventType.REPLACED,
                                            ctx.schedulerActor(),
                                            ctx.nodeId(),
                                            "replaced by the newer run " + newId + " (overflow REPLACE)")
                                    .data(Map.of("replacedBy", newId)))) {
                WorkflowNodeEnds.onRunEnded(ctx, tx, old.id(), to);
            }
        }
    }

    private String activeIds(Tx tx, long taskId, long except) {
        List<String> ids = ctx.store().runs().ofTaskInStates(tx, taskId, ACTIVE, 6).stream()
                .filter(r -> r.id() != except)
                .limit(5)
                .map(r -> "run " + r.id() + " (" + r.state() + ")")
                .toList();
        return String.join(", ", ids);
    }

    private void note(Tx tx, long id, EventType type, String reason) {
        ctx.store()
                .events()
                .appendForRun(tx, id, type, null, null, ctx.schedulerActor(), ctx.nodeId(), reason, Map.of());
    }

    private static NewRun withState(NewRun n, RunState state, String message) {
        return new NewRun(
                n.taskId(),
                n.taskName(),
                n.taskVersion(),
                n.cause(),
                n.fireKey(),
                n.scheduledAt(),
                n.params(),
                state,
                n.maxAttempts(),
                n.group(),
                n.actor(),
                n.nodeId(),
                n.parentId(),
                n.rootId(),
                message,
                n.businessDate());
    }
}
