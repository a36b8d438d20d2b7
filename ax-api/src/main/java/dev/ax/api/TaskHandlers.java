package dev.ax.api;

import dev.ax.api.Views.Counters;
import dev.ax.api.Views.EventView;
import dev.ax.api.Views.Page;
import dev.ax.api.Views.TaskView;
import dev.ax.api.Views.Triggered;
import dev.ax.api.Views.VersionView;
import dev.ax.domain.run.Cause;
import dev.ax.domain.task.ValidationException;
import dev.ax.scheduler.NotFoundException;
import dev.ax.scheduler.Tasks;
import dev.ax.scheduler.Tasks.Saved;
import dev.ax.scheduler.TriggerKey;
import dev.ax.store.EventRow;
import dev.ax.store.Store;
import dev.ax.store.TaskRow;
import dev.ax.store.TaskVersionRow;
import dev.ax.store.Tx;
import io.javalin.http.Context;
import java.util.List;
import java.util.Map;

/** Tasks: the recipe, its versions, its events, and running it now. */
final class TaskHandlers {
    private static final int DEFAULT_LIMIT = 50;

    private final ApiContext api;

    TaskHandlers(ApiContext api) {
        this.api = api;
    }

    void create(Context ctx) {
        Saved saved = api.tasks().create(Bodies.tree(ctx, api.json()), Auth.actor(ctx));
        AuditTrail.target(ctx, "task:" + saved.task().name());
        AuditTrail.note(ctx, "version 1");
        ctx.status(201).json(TaskView.of(saved.task(), saved.warnings()));
    }

    void list(Context ctx) {
        String search = Params.string(ctx, "search");
        int limit = Params.limit(ctx, DEFAULT_LIMIT);
        String after = Cursor.name(Params.string(ctx, "cursor"));
        Store store = api.store();
        List<TaskRow> rows = store.tx(tx -> store.tasks().list(tx, after, search, limit + 1));
        boolean more = rows.size() > limit;
        List<TaskRow> page = more ? rows.subList(0, limit) : rows;
        ctx.json(new Page<>(
                page.stream().map(TaskView::of).toList(),
                more ? Cursor.ofName(page.getLast().name()) : null));
    }

    /** The only answer with the counters: they cost a query, which a list would pay per task. */
    void get(Context ctx) {
        String name = ctx.pathParam("name");
        Store store = api.store();
        ctx.json(store.tx(tx -> {
            TaskRow task = find(tx, name);
            return new CanaryHandlers.TaskWithCanary(
                    TaskView.of(task, null, Counters.of(store.events().countByType(tx, task.id(), Counters.TYPES))),
                    api.node().canaries().active(tx, task.id()).orElse(null));
        }));
    }

    void update(Context ctx) {
        if (CanaryHandlers.isRollout(ctx)) {
            new CanaryHandlers(api).startCanary(ctx);
            return;
        }
        Saved saved = api.tasks().update(ctx.pathParam("name"), Bodies.tree(ctx, api.json()), Auth.actor(ctx));
        recordVersion(ctx, saved.task());
        ctx.json(TaskView.of(saved.task(), saved.warnings()));
    }

    void delete(Context ctx) {
        api.tasks().delete(ctx.pathParam("name"), Auth.actor(ctx));
        ctx.status(204);
    }

    void pause(Context ctx) {
        ctx.json(TaskView.of(api.tasks().setPaused(ctx.pathParam("name"), true, Auth.actor(ctx))));
    }

    void resume(Context ctx) {
        ctx.json(TaskView.of(api.tasks().setPaused(ctx.pathParam("name"), false, Auth.actor(ctx))));
    }

    /** The audit log, newest first. Kept after a delete, so a deleted task's history stays readable. */
    void versions(Context ctx) {
        String name = ctx.pathParam("name");
        int limit = Params.limit(ctx, Params.MAX_LIMIT);
        Store store = api.store();
        List<TaskVersionRow> rows = store.tx(tx -> store.tasks().versions(tx, name, limit));
        if (rows.isEmpty()) {
            throw new NotFoundException("no task named " + name + " (now or ever)");
        }
        ctx.json(Page.of(rows.stream().map(VersionView::of).toList()));
    }

    void events(Context ctx) {
        String name = ctx.pathParam("name");
        int limit = Params.limit(ctx, DEFAULT_LIMIT);
        long before = Cursor.idBefore(Params.string(ctx, "cursor"));
        Store store = api.store();
        List<EventRow> rows = store.tx(tx -> {
            TaskRow task = find(tx, name);
            return store.events().forTask(tx, task.id(), before, limit + 1);
        });
        boolean more = rows.size() > limit;
        List<EventRow> page = more ? rows.subList(0, limit) : rows;
        ctx.json(new Page<>(
                page.stream().map(e -> EventView.of(e, api.mask())).toList(),
                more ? Cursor.ofId(page.getLast().id()) : null));
    }

    /** {@code POST /api/tasks/{name}/trigger}, body {@code {"params":{...}}} or none. */
    void triggerManual(Context ctx) {
        String name = ctx.pathParam("name");
        TriggerKey key = TriggerKeys.of(ctx);
        Map<String, Object> body = Bodies.object(ctx, api.json());
        answer(
                ctx,
                name,
                api.tasks()
                        .trigger(
                                name,
                                params(body),
                                Cause.MANUAL,
                                Auth.actor(ctx),
                                force(body),
                                key,
                                AuditTrail.forTransaction(ctx)));
    }

    /** {@code POST /api/trigger}, body {@code {"taskName":"x","params":{...}}}: another system says something happened. */
    void triggerEvent(Context ctx) {
        TriggerKey key = TriggerKeys.of(ctx);
        Map<String, Object> body = Bodies.object(ctx, api.json());
        if (!(body.get("taskName") instanceof String name) || name.isBlank()) {
            throw new ValidationException("taskName", "required: the name of the task to run");
        }
        AuditTrail.target(ctx, "task:" + name);
        answer(
                ctx,
                name,
                api.tasks()
                        .trigger(
                                name,
                                params(body),
                                Cause.EVENT,
                                Auth.actor(ctx),
                                force(body),
                                key,
                                AuditTrail.forTransaction(ctx)));
    }

    /** The audit entry of an edit carries its version and what it changed (as the version stores it). */
    void recordVersion(Context ctx, TaskRow task) {
        AuditTrail.note(ctx, "version " + task.version());
        Store store = api.store();
        store.tx(tx -> store.tasks().versions(tx, task.name(), 1)).stream()
                .findFirst()
                .filter(v -> v.version() == task.version())
                .ifPresent(v -> AuditTrail.diff(ctx, v.diff()));
    }

    /** 202 for a new run; 200 with {@code "duplicate": true} for the run an earlier request with the same key made. */
    private static void answer(Context ctx, String name, Tasks.Triggered t) {
        ctx.status(t.duplicate() ? 200 : 202).json(new Triggered(t.instanceId(), name, t.duplicate()));
    }

    /** {@code "force": true} runs it even if its idempotency key is already done. */
    private static boolean force(Map<String, Object> body) {
        Object f = body.get("force");
        if (f != null && !(f instanceof Boolean)) {
            throw new ValidationException("force", "must be true or false");
        }
        return Boolean.TRUE.equals(f);
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> params(Map<String, Object> body) {
        Object p = body.get("params");
        if (p == null) {
            return Map.of();
        }
        if (!(p instanceof Map<?, ?> map)) {
            throw new ValidationException("params", "must be a JSON object of parameter names to values");
        }
        return (Map<String, Object>) map;
    }

    private TaskRow find(Tx tx, String name) {
        return api.store().tasks().find(tx, name).orElseThrow(() -> new NotFoundException("no task named " + name));
    }
}
