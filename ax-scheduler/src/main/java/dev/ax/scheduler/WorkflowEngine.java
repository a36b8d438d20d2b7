package dev.ax.scheduler;

import dev.ax.domain.policy.Catchup;
import dev.ax.domain.run.Cause;
import dev.ax.domain.run.EventType;
import dev.ax.domain.run.RunState;
import dev.ax.domain.schedule.Schedules;
import dev.ax.domain.task.FieldError;
import dev.ax.domain.task.MisfirePolicy;
import dev.ax.domain.task.TaskDefinition;
import dev.ax.domain.task.Trigger;
import dev.ax.domain.task.ValidationException;
import dev.ax.domain.workflow.NodeState;
import dev.ax.domain.workflow.WorkflowCodec;
import dev.ax.domain.workflow.WorkflowDefinition;
import dev.ax.domain.workflow.WorkflowPlan;
import dev.ax.domain.workflow.WorkflowRunState;
import dev.ax.store.Move;
import dev.ax.store.NewRun;
import dev.ax.store.RunRow;
import dev.ax.store.Store;
import dev.ax.store.TaskRow;
import dev.ax.store.Tx;
import dev.ax.store.WorkflowRunStore.NewWorkflowRun;
import dev.ax.store.WorkflowRunStore.NodeRunRow;
import dev.ax.store.WorkflowRunStore.WorkflowRunRow;
import dev.ax.store.WorkflowStore.WorkflowRow;
import java.time.Instant;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Runs workflows: creates a run with its node runs, gives ready nodes a run through the
 * concurrency gate (so concurrency limits, idempotency keys and {@code {{date}}} of the run's
 * scheduled time apply as for any run), skips nodes that can never run, and finishes the run.
 * What to do is {@link WorkflowPlan}'s pure decision; this class does the I/O. It is longer than
 * most files here because it is one algorithm (a run's graph, advanced node by node) best read whole.
 *
 * <p>Lock order: the workflow run row, then task rows in name order, then runs. The hook
 * that reports an ended run ({@link WorkflowNodeEnds}) holds a task lock and touches only the
 * node row of that run, never the run row, so the two never wait for each other in a circle.
 */
final class WorkflowEngine {
    static final int BATCH = 100;

    private final NodeContext ctx;
    private final ConcurrencyGate gate;
    private final AtomicLong fired = new AtomicLong();
    private final AtomicLong duplicatesPrevented = new AtomicLong();

    WorkflowEngine(NodeContext ctx, ConcurrencyGate gate) {
        this.ctx = ctx;
        this.gate = gate;
    }

    /** The stored graph of a workflow or run; it was validated when saved (tasks are checked when a node starts). */
    static WorkflowDefinition definition(Map<String, Object> json) {
        return WorkflowCodec.parse(json, t -> true);
    }

    /** Creates a run and starts its first nodes; empty when the (workflow, fire key) slot already has a run. */
    Optional<Long> createRun(
            Tx tx,
            WorkflowRow wf,
            String cause,
            String fireKey,
            Instant scheduledAt,
            Map<String, Object> params,
            Long backfillId,
            String actor) {
        Store store = ctx.store();
        WorkflowDefinition def = definition(wf.definition());
        Optional<Long> id = store.workflowRuns()
                .insert(
                        tx,
                        new NewWorkflowRun(
                                wf.id(),
                                wf.name(),
                                wf.version(),
                                wf.definition(),
                                cause,
                                fireKey,
                                scheduledAt,
                                params,
                                backfillId,
                                actor,
                                ctx.nodeId()));
        if (id.isEmpty()) {
            duplicatesPrevented.incrementAndGet();
            return id;
        }
        fired.incrementAndGet();
        for (WorkflowDefinition.Node n : def.nodes()) {
            store.workflowRuns().insertNode(tx, id.get(), n.name(), n.task());
        }
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("cause", cause);
        data.put("scheduledAt", scheduledAt.toString());
        data.put("version", wf.version());
        store.workflowRuns()
                .event(
                        tx,
                        id.get(),
                        wf.name(),
                        EventType.WORKFLOW_RUN_STARTED,
                        actor,
                        ctx.nodeId(),
                        "run of workflow " + wf.name() + " (" + cause + ") for " + scheduledAt,
                        data);
        advance(tx, store.workflowRuns().find(tx, id.get()).orElseThrow());
        return id;
    }

    /**
     * Acts on a RUNNING run whose row the caller has locked, until nothing changes: skips what can
     * never run, starts what is ready (a run the gate creates already final — skipped by an
     * idempotency key, say — makes its node final at once, so the plan is asked again), and
     * finishes the run when every node is final.
     */
    void advance(Tx tx, WorkflowRunRow run) {
        Store store = ctx.store();
        WorkflowDefinition def = definition(run.definition());
        store.workflowRuns().markNoticed(tx, run.id());
        for (int round = 0; round <= def.nodes().size(); round++) {
            Map<String, NodeRunRow> nodes = new LinkedHashMap<>();
            store.workflowRuns().nodes(tx, run.id()).forEach(n -> nodes.put(n.node(), n));
            Map<String, NodeState> states = new LinkedHashMap<>();
            nodes.forEach((k, v) -> states.put(k, v.state()));
            WorkflowPlan.Plan plan = WorkflowPlan.next(def, states);
            plan.skip().forEach((node, reason) -> {
                if (store.workflowRuns().setNode(tx, run.id(), node, NodeState.PENDING, NodeState.SKIPPED, reason)) {
                    store.workflowRuns()
                            .event(
                                    tx,
                                    run.id(),
                                    run.workflowName(),
                                    EventType.WORKFLOW_NODE_SKIPPED,
                                    ctx.schedulerActor(),
                                    ctx.nodeId(),
                                    "node " + node + " skipped: " + reason,
                                    Map.of("node", node, "reason", reason));
                }
            });
            boolean endedAtOnce = false;
            // Task locks in name order: two runs starting nodes of the same tasks take them in one order.
            List<WorkflowDefinition.Node> starting = plan.start().stream()
                    .map(def::node)
                    .sorted(Comparator.comparing(WorkflowDefinition.Node::task))
                    .toList();
            for (WorkflowDefinition.Node node : starting) {
                endedAtOnce |= start(tx, run, node, nodes.get(node.name()).attempts());
            }
            if (plan.outcome().isPresent()) {
                var outcome = plan.outcome().get();
                if (store.workflowRuns().setState(tx, run.id(), WorkflowRunState.RUNNING, outcome)) {
                    store.workflowRuns()
                            .event(
                                    tx,
                                    run.id(),
                                    run.workflowName(),
                                    EventType.WORKFLOW_RUN_FINISHED,
                                    ctx.schedulerActor(),
                                    ctx.nodeId(),
                                    "workflow run " + run.id() + " " + outcome,
                                    Map.of("state", outcome.name()));
                    ctx.signals().workflowsChanged(); // a backfill may start its next run
                }
                return;
            }
            if (!endedAtOnce) {
                return;
            }
        }
    }

    /**
     * Cancels a RUNNING run whose row the caller has locked: nodes not yet final are SKIPPED (with
     * who canceled), their waiting runs CANCELED and running ones TERMINATED (the executor
     * kills the process tree at its next heartbeat), each through the state machine with its event.
     */
    void cancel(Tx tx, WorkflowRunRow run, String actor, String reason) {
        Store store = ctx.store();
        String why = "workflow run " + run.id() + " canceled by " + actor
                + (reason == null || reason.isBlank() ? "" : ": " + reason);
        List<NodeRunRow> open = store.workflowRuns().nodes(tx, run.id()).stream()
                .filter(n -> !n.state().isFinal())
                .sorted(Comparator.comparing(NodeRunRow::taskName))
                .toList();
        for (NodeRunRow n : open) {
            // The task before the node row: the order in which a run's end takes them (the
            // executor's report locks the task, then the hook updates the node), so the two never deadlock.
            Optional<TaskRow> task =
                    n.instanceId() == null ? Optional.empty() : store.tasks().lock(tx, n.taskName());
            // The node before the run: the run's end below then finds no RUNNING node to report to.
            if (!store.workflowRuns().setNode(tx, run.id(), n.node(), n.state(), NodeState.SKIPPED, why)
                    || n.instanceId() == null) {
                continue;
            }
            RunRow instance = store.runs().find(tx, n.instanceId()).orElse(null);
            if (instance == null || instance.state().isTerminal()) {
                continue;
            }
            RunState to = instance.state() == RunState.RUNNING ? RunState.TERMINATED : RunState.CANCELED;
            store.runs()
                    .move(
                            tx,
                            Move.of(instance.id(), instance.state(), to)
                                    .finished()
                                    .set(Move.Column.MESSAGE, why)
                                    .event(
                                            to == RunState.TERMINATED ? EventType.TERMINATED : EventType.CANCELED,
                                            actor,
                                            ctx.nodeId(),
                                            why));
            task.ifPresent(t -> gate.release(tx, t));
        }
        if (store.workflowRuns().setState(tx, run.id(), WorkflowRunState.RUNNING, WorkflowRunState.CANCELED)) {
            store.workflowRuns()
                    .event(
                            tx,
                            run.id(),
                            run.workflowName(),
                            EventType.WORKFLOW_RUN_FINISHED,
                            actor,
                            ctx.nodeId(),
                            why,
                            Map.of("state", "CANCELED"));
            ctx.signals().workflowsChanged();
        }
    }

    /**
     * The parameters a node's run gets from its workflow run's: a task that declares parameters takes only those
     * it declares (the workflow's other parameters are its other nodes'), checked like any trigger's.
     *
     * @throws ValidationException when the task refuses them
     */
    static Map<String, Object> nodeParams(TaskDefinition def, Map<String, Object> runParams, Instant now) {
        Map<String, Object> mine = runParams;
        if (def.params().declared()) {
            mine = new LinkedHashMap<>(runParams);
            mine.keySet().retainAll(def.params().specs().keySet());
        }
        return Tasks.checkParams(def, mine, now);
    }

    /** Refuses a workflow run's parameters, before anything is written, if a node's task would refuse them. */
    void checkParams(Tx tx, WorkflowDefinition def, Map<String, Object> params) {
        for (WorkflowDefinition.Node n : def.nodes()) {
            Optional<TaskRow> task = ctx.store().tasks().find(tx, n.task());
            if (task.isPresent()) {
                try {
                    nodeParams(task.get().definition(), params, tx.now());
                } catch (ValidationException e) {
                    throw new ValidationException(e.errors().stream()
                            .map(f -> new FieldError(
                                    f.field(), "node " + n.name() + " (task " + n.task() + "): " + f.reason()))
                            .toList());
                }
            }
        }
    }

    /** Gives a node a new run; true if that run is final already (its node too, then). */
    private boolean start(Tx tx, WorkflowRunRow run, WorkflowDefinition.Node node, int attemptsBefore) {
        Store store = ctx.store();
        Optional<TaskRow> task = store.tasks().lock(tx, node.task());
        if (task.isEmpty()) {
            store.workflowRuns()
                    .setNode(
                            tx,
                            run.id(),
                            node.name(),
                            NodeState.PENDING,
                            NodeState.FAILED,
                            "task " + node.task() + " no longer exists");
            return true;
        }
        TaskDefinition def = task.get().definition();
        Map<String, Object> params;
        try {
            params = nodeParams(def, run.params(), tx.now());
        } catch (ValidationException e) {
            store.workflowRuns()
                    .setNode(
                            tx,
                            run.id(),
                            node.name(),
                            NodeState.PENDING,
                            NodeState.FAILED,
                            "task " + node.task() + " refused the run's parameters: " + e.getMessage());
            return true;
        }
        String fireKey = "wf:" + run.id() + ":" + node.name() + "#" + (attemptsBefore + 1);
        String why = "node " + node.name() + " of workflow run " + run.id() + " (" + run.workflowName() + ")";
        long id = gate.admit(
                        tx,
                        task.get(),
                        new NewRun(
                                task.get().id(),
                                task.get().name(),
                                task.get().version(),
                                Cause.WORKFLOW,
                                fireKey,
                                run.scheduledAt(),
                                params,
                                RunState.READY,
                                def.policy().maxAttempts(),
                                def.group(),
                                run.actor(),
                                ctx.nodeId(),
                                null,
                                null,
                                why))
                .or(() -> store.runs().findBySlot(tx, task.get().id(), fireKey).map(RunRow::id))
                .orElseThrow();
        store.workflowRuns().tagRun(tx, id, run.id());
        if (!store.workflowRuns().startNode(tx, run.id(), node.name(), id)) {
            throw new IllegalStateException(
                    "node " + node.name() + " of workflow run " + run.id() + " was not PENDING under the run's lock");
        }
        ctx.signals().workAvailable();
        RunRow created = store.runs().find(tx, id).orElseThrow();
        if (created.state().isTerminal()) {
            store.workflowRuns()
                    .setNode(
                            tx,
                            run.id(),
                            node.name(),
                            NodeState.RUNNING,
                            NodeState.of(created.state()),
                            created.message());
            return true;
        }
        return false;
    }

    /** One pass of the workflow loop: fire due workflows, advance runs with ended nodes, catch unreported ends. */
    int tick() {
        int n = fire();
        n += advanceFlagged();
        n += reconcile();
        return n;
    }

    /** Creates the runs of due slots of scheduled workflows (one per slot, by the unique key); returns how many. */
    int fire() {
        Store store = ctx.store();
        try (AutoCloseable ignored = store.db().dialect().claimLock()) {
            return store.tx(tx -> {
                int created = 0;
                Instant now = tx.now();
                for (WorkflowRow wf : store.workflows().lockDue(tx, ctx.config().fireBatch())) {
                    WorkflowDefinition def = definition(wf.definition());
                    Catchup.Plan plan = Catchup.plan(
                            Schedules.of(def.trigger()),
                            wf.nextFireAt(),
                            now,
                            ctx.config().scanWindow(),
                            MisfirePolicy.FIRE_ONCE,
                            Catchup.DEFAULT_MAX_SLOTS);
                    String cause = (def.trigger() instanceof Trigger.Interval ? Cause.INTERVAL : Cause.CRON).wireName();
                    for (Catchup.Slot slot : plan.fire()) {
                        if (createRun(
                                        tx,
                                        wf,
                                        cause,
                                        Firing.fireKey(slot.at()),
                                        slot.at(),
                                        Map.of(),
                                        null,
                                        ctx.schedulerActor())
                                .isPresent()) {
                            created++;
                        }
                    }
                    if (plan.skippedTotal() > 0) {
                        store.workflowRuns()
                                .event(
                                        tx,
                                        null,
                                        wf.name(),
                                        EventType.MISFIRE_SKIPPED,
                                        ctx.schedulerActor(),
                                        ctx.nodeId(),
                                        plan.skippedTotal() + " missed slots of workflow " + wf.name()
                                                + " not run (only the latest runs)",
                                        Map.of("count", plan.skippedTotal()));
                    }
                    if (!store.workflows().advance(tx, wf.id(), wf.version(), plan.nextFireAt())) {
                        throw new IllegalStateException("workflow " + wf.name() + " changed while locked for firing");
                    }
                }
                return created;
            });
        } catch (Exception e) {
            throw e instanceof RuntimeException re ? re : new IllegalStateException(e);
        }
    }

    /** Advances the runs whose nodes ended since they were last looked at; returns how many runs. */
    int advanceFlagged() {
        Store store = ctx.store();
        int n = 0;
        for (long id : store.tx(tx -> store.workflowRuns().runsToAdvance(tx, BATCH))) {
            n += store.tx(tx -> {
                // Another node advancing this run holds its lock: it will see these ends itself.
                Optional<WorkflowRunRow> run = store.workflowRuns().lockRunningSkipLocked(tx, id);
                if (run.isEmpty()) {
                    if (store.workflowRuns()
                            .find(tx, id)
                            .map(r -> r.state().isFinished())
                            .orElse(true)) {
                        store.workflowRuns().markNoticed(tx, id);
                    }
                    return 0;
                }
                advance(tx, run.get());
                return 1;
            });
        }
        return n;
    }

    /** Node runs that ended by a path that did not report it (the safety net); returns how many. */
    int reconcile() {
        Store store = ctx.store();
        int n = 0;
        for (long[] row : store.tx(tx -> store.workflowRuns().endedUnreported(tx, BATCH))) {
            n += store.tx(tx -> store.runs()
                    .find(tx, row[1])
                    .map(i -> store.workflowRuns().instanceEnded(tx, i.id(), NodeState.of(i.state()), null))
                    .orElse(0));
        }
        return n;
    }

    Optional<Instant> nextDue() {
        return ctx.store().tx(tx -> ctx.store().workflows().earliestNextFire(tx));
    }

    long firedCount() {
        return fired.get();
    }

    long duplicatesPrevented() {
        return duplicatesPrevented.get();
    }
}
