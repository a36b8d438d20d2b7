package dev.ax.api;

import dev.ax.store.TeamStore.Owner;
import dev.ax.store.Tx;
import io.javalin.http.Context;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * Which teams own what a route acts on, so that a team's grant can count there (a {@code null} team: the target
 * belongs to none, only global roles count). Found only when a team grant could decide ({@link Auth}), and for the
 * audit. Empty: the target does not exist, and the handler says so (404).
 */
@FunctionalInterface
public interface Scope {
    Optional<List<String>> owners(Context ctx, ApiContext api);

    /** Nothing of a team's: tokens, secrets, teams, the executor protocol, reads of everything. */
    Scope GLOBAL = (ctx, api) -> Optional.of(teamless());

    /** The task named in the path. */
    Scope TASK = (ctx, api) -> owner(api, tx -> api.store().teams().ownerOfTask(tx, ctx.pathParam("name")));

    /** A task about to be created: the team its definition names. */
    Scope NEW_TASK = (ctx, api) -> body(ctx, api).map(b -> teamsOf(b.get("team")));

    /** A task's new definition, or a draft of it: its team now (when it exists) and the one the definition names. */
    Scope TASK_EDIT = (ctx, api) -> edited(ctx, api, TASK, NEW_TASK);

    /** A test run's draft, sent as it is or as {@code {"definition": {...}, "params": {...}}}, and the task it drafts. */
    Scope TEST_RUN = (ctx, api) -> edited(
            ctx,
            api,
            TASK,
            (c, a) -> body(c, a)
                    .map(b -> teamsOf(b.get("definition") instanceof Map<?, ?> d ? d.get("team") : b.get("team"))));

    /** The task a body's {@code taskName} names ({@code POST /api/trigger}). */
    Scope TASK_IN_BODY = (ctx, api) -> body(ctx, api)
            .flatMap(b -> b.get("taskName") instanceof String name
                    ? owner(api, tx -> api.store().teams().ownerOfTask(tx, name))
                    : Optional.empty());

    /** The run of the path's id: its task's team. */
    Scope RUN = (ctx, api) -> byId(api, ctx, (tx, id) -> api.store().teams().ownerOfRun(tx, id));

    Scope BACKFILL =
            (ctx, api) -> byId(api, ctx, (tx, id) -> api.store().teams().ownerOfBackfill(tx, id));

    Scope WORKFLOW = (ctx, api) -> owner(api, tx -> api.store().teams().ownerOfWorkflow(tx, ctx.pathParam("name")));

    Scope NEW_WORKFLOW = NEW_TASK;

    Scope WORKFLOW_EDIT = (ctx, api) -> edited(ctx, api, WORKFLOW, NEW_WORKFLOW);

    Scope WORKFLOW_RUN =
            (ctx, api) -> byId(api, ctx, (tx, id) -> api.store().teams().ownerOfWorkflowRun(tx, id));

    Scope WORKFLOW_BACKFILL =
            (ctx, api) -> byId(api, ctx, (tx, id) -> api.store().teams().ownerOfWorkflowBackfill(tx, id));

    /** The audit of one team ({@code ?team=data}): that team's admins may read it. */
    Scope AUDIT = (ctx, api) -> Optional.of(teamsOf(ctx.queryParam("team")));

    // ---- helpers ------------------------------------------------------------------------------------------------

    private static List<String> teamless() {
        return Arrays.asList((String) null);
    }

    private static List<String> teamsOf(Object team) {
        return team instanceof String t && !t.isBlank() ? List.of(t) : teamless();
    }

    private static Optional<List<String>> edited(Context ctx, ApiContext api, Scope now, Scope next) {
        Optional<List<String>> after = next.owners(ctx, api);
        if (after.isEmpty()) {
            return Optional.empty();
        }
        List<String> both = new ArrayList<>(now.owners(ctx, api).orElse(List.of()));
        both.addAll(after.get());
        return Optional.of(both);
    }

    /** The owner a query finds, as teams; empty when there is no such thing. */
    private static Optional<List<String>> owner(ApiContext api, Function<Tx, Optional<Owner>> query) {
        return api.store().tx(query::apply).map(o -> teamsOf(o.team()));
    }

    private static Optional<List<String>> byId(
            ApiContext api, Context ctx, BiFunction<Tx, Long, Optional<Owner>> query) {
        long id;
        try {
            id = Long.parseLong(ctx.pathParam("id"));
        } catch (NumberFormatException e) {
            return Optional.empty(); // the handler refuses the id
        }
        return owner(api, tx -> query.apply(tx, id));
    }

    /** The body as a JSON object; empty when it is not one (the handler refuses it, 400). */
    @SuppressWarnings("unchecked")
    private static Optional<Map<String, Object>> body(Context ctx, ApiContext api) {
        try {
            byte[] bytes = ctx.bodyAsBytes();
            return bytes.length == 0
                    ? Optional.empty()
                    : api.json().readValue(bytes, Object.class) instanceof Map<?, ?> m
                            ? Optional.of((Map<String, Object>) m)
                            : Optional.empty();
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }
}
