package dev.ax.scheduler;

import dev.ax.domain.run.EventType;
import dev.ax.domain.run.RunState;
import dev.ax.domain.schedule.Schedules;
import dev.ax.domain.task.ValidationException;
import dev.ax.domain.workflow.NodeState;
import dev.ax.domain.workflow.WorkflowCodec;
import dev.ax.domain.workflow.WorkflowDefinition;
import dev.ax.domain.workflow.WorkflowRunState;
import dev.ax.store.JsonDiff;
import dev.ax.store.RunRow;
import dev.ax.store.Store;
import dev.ax.store.Tx;
import dev.ax.store.WorkflowRunStore.NodeRunRow;
import dev.ax.store.WorkflowRunStore.RunEvent;
import dev.ax.store.WorkflowRunStore.WorkflowRunRow;
import dev.ax.store.WorkflowStore.WorkflowRow;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;

/**
 * What people do to workflows: create, replace, delete, trigger, look at a run's graph, rerun
 * from a failed node. Each change is one transaction with its event; input is validated
 * completely (by {@link WorkflowCodec}, a pure function) before anything is written.
 */
public final class Workflows {
    private final NodeContext ctx;
    private final WorkflowEngine engine;

    Workflows(NodeContext ctx, WorkflowEngine engine) {
        this.ctx = ctx;
        this.engine = engine;
    }

    /** A stored workflow and its parsed graph. */
    public record Workflow(WorkflowRow row, WorkflowDefinition definition) {}

    /**
     * One node of a run, for drawing the graph: its state, its current run (and that
     * run's state and message), how many runs it has had, the nodes above it and its
     * column (the longest path from a first node).
     */
    public record NodeView(
            String name,
            String task,
            String triggerRule,
            NodeState state,
            Long instanceId,
            String instanceState,
            String message,
            int attempts,
            List<String> upstream,
            int depth) {}

    public record RunView(
            WorkflowRunRow run,
            WorkflowDefinition definition,
            List<NodeView> nodes,
            Map<String, Integer> instancesPerTask,
            List<RunEvent> events) {}

    public Workflow create(Object json, String actor) {
        Store store = ctx.store();
        Workflow saved = store.tx(tx -> {
            WorkflowDefinition def = parse(tx, json);
            Teams.requireExists(tx, store, def.team(), "team");
            if (store.workflows().find(tx, def.name()).isPresent()) {
                throw new ConflictException("workflow " + def.name() + " already exists; use PUT /api/workflows/"
                        + def.name() + " to change it");
            }
            WorkflowRow row = store.workflows()
                    .insert(tx, def.name(), WorkflowCodec.toJson(def), firstSlotAfter(def, tx.now()), actor);
            store.workflowRuns()
                    .event(
                            tx,
                            null,
                            def.name(),
                            EventType.WORKFLOW_CREATED,
                            actor,
                            ctx.nodeId(),
                            "version 1 created",
                            Map.of("version", 1));
            return new Workflow(row, def);
        });
        ctx.signals().workflowsChanged();
        return saved;
    }

    /** Replaces a workflow (a new version). Runs already started keep the graph they started with. */
    public Workflow update(String name, Object json, String actor) {
        Store store = ctx.store();
        Workflow saved = store.tx(tx -> {
            WorkflowDefinition def = parse(tx, json);
            if (!def.name().equals(name)) {
                throw new ValidationException(
                        "name", "must be '" + name + "' (the name in the URL); rename by creating a new workflow");
            }
            Teams.requireExists(tx, store, def.team(), "team");
            WorkflowRow current = store.workflows().lock(tx, name).orElseThrow(() -> notFound(name));
            WorkflowDefinition before = WorkflowEngine.definition(current.definition());
            Instant next = Objects.equals(before.trigger(), def.trigger())
                    ? current.nextFireAt()
                    : firstSlotAfter(def, tx.now());
            WorkflowRow row = store.workflows().update(tx, current, WorkflowCodec.toJson(def), next, actor);
            store.workflowRuns()
                    .event(
                            tx,
                            null,
                            name,
                            EventType.WORKFLOW_UPDATED,
                            actor,
                            ctx.nodeId(),
                            "version " + row.version(),
                            Map.of(
                                    "version",
                                    row.version(),
                                    "diff",
                                    JsonDiff.diff(current.definition(), row.definition())));
            return new Workflow(row, def);
        });
        ctx.signals().workflowsChanged();
        return saved;
    }

    /** Deletes a workflow; its runs keep going and stay readable. */
    public void delete(String name, String actor) {
        Store store = ctx.store();
        store.tx(tx -> {
            WorkflowRow current = store.workflows().lock(tx, name).orElseThrow(() -> notFound(name));
            store.workflows().delete(tx, current);
            store.workflowRuns()
                    .event(
                            tx,
                            null,
                            name,
                            EventType.WORKFLOW_DELETED,
                            actor,
                            ctx.nodeId(),
                            "deleted at version " + current.version(),
                            Map.of("version", current.version()));
            return null;
        });
    }

    public Workflow get(String name) {
        return ctx.store()
                .tx(tx -> ctx.store()
                        .workflows()
                        .find(tx, name)
                        .map(r -> new Workflow(r, WorkflowEngine.definition(r.definition())))
                        .orElseThrow(() -> notFound(name)));
    }

    public List<Workflow> list(String afterName, int limit) {
        return ctx.store()
                .tx(tx -> ctx.store().workflows().list(tx, afterName, limit).stream()
                        .map(r -> new Workflow(r, WorkflowEngine.definition(r.definition())))
                        .toList());
    }

    /** Runs the workflow now, by hand: a new run whose {@code {{date}}} is today's. */
    public long trigger(String name, Map<String, Object> params, String actor) {
        Store store = ctx.store();
        long id = store.tx(tx -> {
            WorkflowRow wf = store.workflows().find(tx, name).orElseThrow(() -> notFound(name));
            Map<String, Object> given = params == null ? Map.of() : params;
            engine.checkParams(tx, WorkflowEngine.definition(wf.definition()), given);
            return engine.createRun(tx, wf, "manual", "manual:" + UUID.randomUUID(), tx.now(), given, null, actor)
                    .orElseThrow();
        });
        ctx.signals().workAvailable();
        return id;
    }

    public List<WorkflowRunRow> runs(String workflowName, long beforeId, int limit) {
        return ctx.store().tx(tx -> ctx.store().workflowRuns().list(tx, workflowName, beforeId, limit));
    }

    /** A run with its graph and node states: what the API and the console draw. */
    public RunView run(long id) {
        Store store = ctx.store();
        return store.tx(tx -> {
            WorkflowRunRow run =
                    store.workflowRuns().find(tx, id).orElseThrow(() -> new NotFoundException("no workflow run " + id));
            return view(tx, run);
        });
    }

    private RunView view(Tx tx, WorkflowRunRow run) {
        Store store = ctx.store();
        WorkflowDefinition def = WorkflowEngine.definition(run.definition());
        Map<String, NodeRunRow> rows = new LinkedHashMap<>();
        store.workflowRuns().nodes(tx, run.id()).forEach(n -> rows.put(n.node(), n));
        Map<String, Integer> depths = def.depths();
        List<NodeView> nodes = new ArrayList<>();
        for (String name : def.topologicalOrder()) {
            WorkflowDefinition.Node n = def.node(name);
            NodeRunRow row = rows.get(name);
            RunRow instance = row == null || row.instanceId() == null
                    ? null
                    : store.runs().find(tx, row.instanceId()).orElse(null);
            // Why a node is where it is: the rule's reason, or what went wrong with its run (a success needs no
            // words).
            String message = row != null && row.reason() != null
                    ? row.reason()
                    : instance == null || instance.state() == RunState.SUCCESS ? null : instance.message();
            nodes.add(new NodeView(
                    name,
                    n.task(),
                    n.rule().wireName(),
                    row == null ? NodeState.PENDING : row.state(),
                    row == null ? null : row.instanceId(),
                    instance == null ? null : instance.state().name(),
                    message,
                    row == null ? 0 : row.attempts(),
                    def.upstream(name),
                    depths.get(name)));
        }
        return new RunView(
                run,
                def,
                nodes,
                store.workflowRuns().instanceCounts(tx, run.id()),
                store.workflowRuns().events(tx, run.id()));
    }

    /**
     * Runs a finished run again from {@code from} (default: every FAILED node): those nodes and
     * all their descendants go back to PENDING and run again as their rules say; the others keep
     * their outcome and their single instance. The run is RUNNING again until they are final.
     */
    public RunView rerun(long id, String from, String actor) {
        Store store = ctx.store();
        RunView view = store.tx(tx -> {
            WorkflowRunRow run =
                    store.workflowRuns().lock(tx, id).orElseThrow(() -> new NotFoundException("no workflow run " + id));
            if (!run.state().isFinished()) {
                throw new ConflictException("workflow run " + id + " is " + run.state()
                        + "; rerun a finished run (wait for it, or cancel its runs)");
            }
            WorkflowDefinition def = WorkflowEngine.definition(run.definition());
            List<String> starts;
            if (from == null || from.isBlank()) {
                starts = store.workflowRuns().nodes(tx, id).stream()
                        .filter(n -> n.state() == NodeState.FAILED)
                        .map(NodeRunRow::node)
                        .toList();
                if (starts.isEmpty()) {
                    throw new ConflictException(
                            "workflow run " + id + " has no FAILED node; name the node to rerun from with \"from\"");
                }
            } else {
                if (!def.hasNode(from)) {
                    throw new ValidationException(
                            "from",
                            "no node named '" + from + "' in workflow run " + id + "; nodes: "
                                    + String.join(", ", def.topologicalOrder()));
                }
                starts = List.of(from);
            }
            List<String> reset = def.withDescendants(starts);
            for (String node : reset) {
                store.workflowRuns().resetNode(tx, id, node);
            }
            if (!store.workflowRuns().setState(tx, id, run.state(), WorkflowRunState.RUNNING)) {
                throw new ConflictException("workflow run " + id + " changed meanwhile; look again");
            }
            Map<String, Object> data = new LinkedHashMap<>();
            data.put("from", starts);
            data.put("reset", reset);
            data.put("previousState", run.state().name());
            store.workflowRuns()
                    .event(
                            tx,
                            id,
                            run.workflowName(),
                            EventType.WORKFLOW_RERUN,
                            actor,
                            ctx.nodeId(),
                            "rerun from " + String.join(", ", starts) + " by " + actor + "; again: "
                                    + String.join(", ", reset),
                            data);
            WorkflowRunRow reopened = store.workflowRuns().find(tx, id).orElseThrow();
            engine.advance(tx, reopened);
            return view(tx, store.workflowRuns().find(tx, id).orElseThrow());
        });
        ctx.signals().workAvailable();
        return view;
    }

    /** Stops a RUNNING run: what has not finished is skipped, waiting runs canceled, running ones terminated. */
    public RunView cancel(long id, String actor, String reason) {
        Store store = ctx.store();
        return store.tx(tx -> {
            WorkflowRunRow run =
                    store.workflowRuns().lock(tx, id).orElseThrow(() -> new NotFoundException("no workflow run " + id));
            if (run.state().isFinished()) {
                throw new ConflictException(
                        "workflow run " + id + " is " + run.state() + "; only a RUNNING run can be canceled");
            }
            engine.cancel(tx, run, actor, ctx.secrets().mask().apply(reason));
            return view(tx, store.workflowRuns().find(tx, id).orElseThrow());
        });
    }

    private WorkflowDefinition parse(Tx tx, Object json) {
        return WorkflowCodec.parse(
                json, task -> ctx.store().tasks().find(tx, task).isPresent());
    }

    static Instant firstSlotAfter(WorkflowDefinition def, Instant now) {
        return def.trigger().isScheduled()
                ? Schedules.of(def.trigger()).nextAfter(now).orElse(null)
                : null;
    }

    private static NotFoundException notFound(String name) {
        return new NotFoundException("no workflow named " + name);
    }
}
