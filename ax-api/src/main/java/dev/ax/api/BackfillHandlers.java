package dev.ax.api;

import dev.ax.domain.run.RunState;
import dev.ax.scheduler.Backfills;
import io.javalin.http.Context;
import java.util.LinkedHashMap;
import java.util.Map;

/** Backfills: start one (or a dry run), follow its progress, pause, resume, cancel. */
final class BackfillHandlers {
    private final ApiContext api;

    BackfillHandlers(ApiContext api) {
        this.api = api;
    }

    /** {@code POST /api/tasks/{name}/backfill}, body {@code {"from":"2026-10-01","to":"2026-10-31","parallelism":2,...}}. */
    void start(Context ctx) {
        Backfills.Started s =
                api.node().backfills().start(ctx.pathParam("name"), Bodies.object(ctx, api.json()), Auth.actor(ctx));
        AuditTrail.note(ctx, s.backfillId() == null ? "dry run" : "backfill " + s.backfillId());
        ctx.status(s.backfillId() == null ? 200 : 201).json(s);
    }

    void get(Context ctx) {
        ctx.json(view(api.node().backfills().progress(Params.pathId(ctx, "id"))));
    }

    void pause(Context ctx) {
        ctx.json(view(api.node().backfills().pause(Params.pathId(ctx, "id"))));
    }

    void resume(Context ctx) {
        ctx.json(view(api.node().backfills().resume(Params.pathId(ctx, "id"))));
    }

    void cancel(Context ctx) {
        ctx.json(view(api.node().backfills().cancel(Params.pathId(ctx, "id"), Auth.actor(ctx))));
    }

    private static Map<String, Object> view(Backfills.Progress p) {
        Map<String, Object> v = new LinkedHashMap<>();
        var b = p.backfill();
        v.put("id", b.id());
        v.put("taskName", b.taskName());
        v.put("state", b.state());
        v.put("from", b.from());
        v.put("to", b.to());
        v.put("parallelism", b.parallelism());
        v.put("reprocess", b.reprocess());
        v.put("order", b.newestFirst() ? "newest" : "oldest");
        v.put("params", b.params());
        v.put("slots", b.total());
        v.put("pending", p.pending());
        Map<String, Integer> runs = new LinkedHashMap<>();
        p.runs().forEach((state, n) -> runs.put(state.name(), n));
        v.put("runs", runs);
        int done = p.runs().getOrDefault(RunState.SUCCESS, 0);
        int failed = p.runs().getOrDefault(RunState.FAILED, 0);
        v.put("done", done);
        v.put("failed", failed);
        v.put("createdBy", b.createdBy());
        v.put("createdAt", b.createdAt());
        return v;
    }
}
