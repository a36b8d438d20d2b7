package dev.ax.api;

import dev.ax.api.Views.Page;
import dev.ax.domain.task.ValidationException;
import dev.ax.domain.workflow.WorkflowCodec;
import dev.ax.scheduler.WorkflowBackfills;
import dev.ax.scheduler.Workflows;
import dev.ax.scheduler.Workflows.RunView;
import dev.ax.scheduler.Workflows.Workflow;
import dev.ax.store.JsonDiff;
import dev.ax.store.WorkflowRunStore.WorkflowRunRow;
import io.javalin.http.Context;
import java.time.LocalDate;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Workflows (graphs of tasks): definitions, runs with their node states, rerun from a node, backfill. */
final class WorkflowHandlers {
    private static final int DEFAULT_LIMIT = 50;

    private final ApiContext api;

    WorkflowHandlers(ApiContext api) {
        this.api = api;
    }

    private Workflows workflows() {
        return api.node().workflows().service();
    }

    void create(Context ctx) {
        Workflow created = workflows().create(Bodies.tree(ctx, api.json()), Auth.actor(ctx));
        AuditTrail.target(ctx, "workflow:" + created.row().name());
        ctx.status(201).json(view(created));
    }

    void list(Context ctx) {
        int limit = Params.limit(ctx, DEFAULT_LIMIT);
        String after = Cursor.name(Params.string(ctx, "cursor"));
        List<Workflow> rows = workflows().list(after, limit + 1);
        boolean more = rows.size() > limit;
        List<Workflow> page = more ? rows.subList(0, limit) : rows;
        ctx.json(new Page<>(
                page.stream().map(WorkflowHandlers::view).toList(),
                more ? Cursor.ofName(page.getLast().row().name()) : null));
    }

    void get(Context ctx) {
        ctx.json(view(workflows().get(ctx.pathParam("name"))));
    }

    void update(Context ctx) {
        String name = ctx.pathParam("name");
        Map<String, Object> before = workflows().get(name).row().definition();
        Workflow updated = workflows().update(name, Bodies.tree(ctx, api.json()), Auth.actor(ctx));
        AuditTrail.note(ctx, "version " + updated.row().version());
        AuditTrail.diff(ctx, JsonDiff.diff(before, updated.row().definition()));
        ctx.json(view(updated));
    }

    void delete(Context ctx) {
        workflows().delete(ctx.pathParam("name"), Auth.actor(ctx));
        ctx.status(204);
    }

    /** {@code POST /api/workflows/{name}/trigger}, body {@code {"params":{...}}} or none: every node's run gets the params. */
    @SuppressWarnings("unchecked")
    void trigger(Context ctx) {
        Map<String, Object> body = Bodies.object(ctx, api.json());
        Object p = body.get("params");
        if (p != null && !(p instanceof Map<?, ?>)) {
            throw new ValidationException("params", "must be a JSON object of parameter names to values");
        }
        long id = workflows()
                .trigger(ctx.pathParam("name"), p == null ? Map.of() : (Map<String, Object>) p, Auth.actor(ctx));
        AuditTrail.note(ctx, "workflow run " + id);
        ctx.status(202).json(view(workflows().run(id)));
    }

    /** {@code GET /api/workflow-runs?workflow=NAME}: runs newest first, without their nodes. */
    void runs(Context ctx) {
        int limit = Params.limit(ctx, DEFAULT_LIMIT);
        long before = Cursor.idBefore(Params.string(ctx, "cursor"));
        List<WorkflowRunRow> rows = workflows().runs(Params.string(ctx, "workflow"), before, limit + 1);
        boolean more = rows.size() > limit;
        List<WorkflowRunRow> page = more ? rows.subList(0, limit) : rows;
        ctx.json(new Page<>(
                page.stream().map(WorkflowHandlers::summary).toList(),
                more ? Cursor.ofId(page.getLast().id()) : null));
    }

    void run(Context ctx) {
        ctx.json(view(workflows().run(Params.pathId(ctx, "id"))));
    }

    /** {@code POST /api/workflow-runs/{id}/rerun}, body {@code {"from":"node"}} or none (every failed node). */
    void rerun(Context ctx) {
        Map<String, Object> body = Bodies.object(ctx, api.json());
        Object from = body.get("from");
        if (from != null && !(from instanceof String)) {
            throw new ValidationException("from", "must be the name of a node");
        }
        ctx.json(view(workflows().rerun(Params.pathId(ctx, "id"), (String) from, Auth.actor(ctx))));
    }

    /** {@code POST /api/workflow-runs/{id}/cancel}, body {@code {"reason":…}} or none. */
    void cancel(Context ctx) {
        Map<String, Object> body = Bodies.object(ctx, api.json());
        Object reason = body.get("reason");
        ctx.json(view(workflows()
                .cancel(Params.pathId(ctx, "id"), Auth.actor(ctx), reason == null ? null : String.valueOf(reason))));
    }

    void backfill(Context ctx) {
        WorkflowBackfills.Started s = api.node()
                .workflows()
                .backfills()
                .start(ctx.pathParam("name"), Bodies.object(ctx, api.json()), Auth.actor(ctx));
        AuditTrail.note(ctx, s.backfillId() == null ? "dry run" : "workflow backfill " + s.backfillId());
        ctx.status(s.backfillId() == null ? 200 : 201).json(s);
    }

    void backfillProgress(Context ctx) {
        WorkflowBackfills.Progress p = api.node().workflows().backfills().progress(Params.pathId(ctx, "id"));
        Map<String, Object> v = new LinkedHashMap<>();
        var b = p.backfill();
        v.put("id", b.id());
        v.put("workflow", b.workflowName());
        v.put("state", b.state());
        v.put("from", b.from());
        v.put("to", b.to());
        v.put("parallelism", b.parallelism());
        v.put("order", b.newestFirst() ? "newest" : "oldest");
        v.put("slots", b.total());
        v.put("pending", b.total() - b.nextIndex());
        v.put("runs", p.runs().stream().map(WorkflowHandlers::summary).toList());
        v.put("createdBy", b.createdBy());
        v.put("createdAt", b.createdAt());
        ctx.json(v);
    }

    static Map<String, Object> view(Workflow w) {
        Map<String, Object> v = new LinkedHashMap<>(WorkflowCodec.toJson(w.definition()));
        v.put("version", w.row().version());
        v.put("nextFireAt", w.row().nextFireAt());
        v.put("createdAt", w.row().createdAt());
        v.put("createdBy", w.row().createdBy());
        v.put("updatedAt", w.row().updatedAt());
        v.put("updatedBy", w.row().updatedBy());
        return v;
    }

    static Map<String, Object> summary(WorkflowRunRow r) {
        Map<String, Object> v = new LinkedHashMap<>();
        v.put("id", r.id());
        v.put("workflow", r.workflowName());
        v.put("version", r.workflowVersion());
        v.put("state", r.state());
        v.put("cause", r.cause());
        v.put("fireKey", r.fireKey());
        v.put("scheduledAt", r.scheduledAt());
        v.put("params", r.params());
        v.put("backfillId", r.backfillId());
        v.put("actor", r.actor());
        v.put("createdAt", r.createdAt());
        v.put("finishedAt", r.finishedAt());
        return v;
    }

    /** A run with its graph: every node with its state, run and upstream nodes, plus the edges and the run's events. */
    static Map<String, Object> view(RunView rv) {
        Map<String, Object> v = summary(rv.run());
        v.put(
                "date",
                LocalDate.ofInstant(
                        rv.run().scheduledAt(), rv.definition().trigger().timezone()));
        v.put(
                "nodes",
                rv.nodes().stream()
                        .map(n -> {
                            Map<String, Object> m = new LinkedHashMap<>();
                            m.put("name", n.name());
                            m.put("task", n.task());
                            m.put("triggerRule", n.triggerRule());
                            m.put("state", n.state());
                            m.put("instanceId", n.instanceId());
                            m.put("instanceState", n.instanceState());
                            m.put("attempts", n.attempts());
                            m.put("upstream", n.upstream());
                            m.put("depth", n.depth());
                            m.put("reason", n.message());
                            return m;
                        })
                        .toList());
        v.put("edges", WorkflowCodec.toJson(rv.definition()).get("edges"));
        v.put("instancesPerTask", rv.instancesPerTask());
        v.put(
                "events",
                rv.events().stream()
                        .map(e -> {
                            Map<String, Object> m = new LinkedHashMap<>();
                            m.put("id", e.id());
                            m.put("type", e.type());
                            m.put("at", e.at());
                            m.put("actor", e.actor());
                            m.put("message", e.message());
                            m.put("data", e.data());
                            return m;
                        })
                        .toList());
        return v;
    }
}
