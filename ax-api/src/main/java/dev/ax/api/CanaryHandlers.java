package dev.ax.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonUnwrapped;
import dev.ax.api.Views.TaskView;
import dev.ax.domain.task.ValidationException;
import dev.ax.scheduler.Canaries;
import dev.ax.scheduler.TestRuns;
import io.javalin.http.Context;
import java.util.List;
import java.util.Map;

/**
 * Staged changes of a task: a canary rollout ({@code PUT /api/tasks/{name}?rollout=canary&percent=10},
 * the body the new definition as for any update), its promotion and rollback, and test runs of a
 * draft ({@code POST /api/tasks/{name}/test-run}).
 */
final class CanaryHandlers {
    private final ApiContext api;

    CanaryHandlers(ApiContext api) {
        this.api = api;
    }

    /** A task answer with its canary rollout, when one is in progress. */
    record TaskWithCanary(
            @JsonUnwrapped TaskView task,
            @JsonInclude(JsonInclude.Include.NON_NULL) Canaries.Status canary) {}

    /** True when {@code PUT /api/tasks/{name}} asks for a staged rollout rather than a plain update. */
    static boolean isRollout(Context ctx) {
        String rollout = Params.string(ctx, "rollout");
        if (rollout == null) {
            for (String p : List.of("percent", "runs", "margin", "minRuns")) {
                if (Params.string(ctx, p) != null) {
                    throw new ValidationException(p, "only with rollout=canary");
                }
            }
            return false;
        }
        if (!rollout.equals("canary")) {
            throw new ValidationException("rollout", "unknown rollout '" + rollout + "'; the one there is: canary");
        }
        return true;
    }

    /** {@code PUT /api/tasks/{name}?rollout=canary&percent=10} (or {@code &runs=3}), optional {@code &margin=20&minRuns=3}. */
    void startCanary(Context ctx) {
        Canaries.Rollout rollout = Canaries.Rollout.of(
                optionalInt(ctx, "percent"),
                optionalInt(ctx, "runs"),
                optionalInt(ctx, "margin"),
                optionalInt(ctx, "minRuns"));
        Canaries.Started s = api.node()
                .canaries()
                .start(ctx.pathParam("name"), Bodies.tree(ctx, api.json()), rollout, Auth.actor(ctx));
        AuditTrail.action(ctx, "task.canary.start");
        AuditTrail.note(ctx, "canary version " + s.canary().canaryVersion());
        ctx.status(202).json(new TaskWithCanary(TaskView.of(s.task(), s.warnings()), s.canary()));
    }

    void promote(Context ctx) {
        ctx.json(TaskView.of(api.node().canaries().promote(ctx.pathParam("name"), Auth.actor(ctx))));
    }

    void rollback(Context ctx) {
        ctx.json(TaskView.of(api.node().canaries().rollback(ctx.pathParam("name"), Auth.actor(ctx))));
    }

    /**
     * {@code POST /api/tasks/{name}/test-run}: the body is the draft definition, or
     * {@code {"definition": {...}, "params": {...}}} to fill {@code {{params.x}}} templates.
     */
    @SuppressWarnings("unchecked")
    void testRun(Context ctx) {
        Object body = Bodies.tree(ctx, api.json());
        Object draft = body;
        Map<String, Object> params = Map.of();
        if (body instanceof Map<?, ?> m && m.containsKey("definition")) {
            draft = m.get("definition");
            Object p = m.get("params");
            if (p != null && !(p instanceof Map<?, ?>)) {
                throw new ValidationException("params", "must be a JSON object of parameter names to values");
            }
            params = p == null ? Map.of() : (Map<String, Object>) p;
        }
        TestRuns.Started s = api.node().testRuns().run(ctx.pathParam("name"), draft, params, Auth.actor(ctx));
        ctx.status(202).json(s);
    }

    private static Integer optionalInt(Context ctx, String name) {
        String v = Params.string(ctx, name);
        if (v == null) {
            return null;
        }
        try {
            return Integer.parseInt(v.strip());
        } catch (NumberFormatException e) {
            throw new ValidationException(name, "not a number: '" + v + "'");
        }
    }
}
