package dev.ax.api;

import dev.ax.domain.access.Principal;
import dev.ax.domain.access.Role;
import dev.ax.store.AuditStore.Entry;
import dev.ax.store.Json;
import io.javalin.http.Context;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The API's part of the audit log: after each request, one entry for what it changed or tried to change — every
 * request but reads and the executor protocol's routine reports — and for every request refused for who sent it (401,
 * 403) on any route. The action and the target come from the route ({@code POST /api/tasks/{name}/pause} on
 * {@code nightly} is {@code task.pause} on {@code task:nightly}); a handler names what the path cannot
 * ({@link #target}, {@link #note}, {@link #diff}). Values of secrets and tokens never reach an entry: no body is recorded.
 */
public final class AuditTrail {
    private static final String TARGET = "ax.audit.target";
    private static final String NOTE = "ax.audit.note";
    private static final String DIFF = "ax.audit.diff";
    private static final String TEAM = "ax.audit.team";
    private static final String ACTION = "ax.audit.action";
    private static final String ROUTE = "ax.audit.route";
    private static final String IN_TRANSACTION = "ax.audit.in-transaction";
    private static final int MAX_MESSAGE = 2000;
    private static final Logger log = LoggerFactory.getLogger(AuditTrail.class);

    /** What a path's first segment is, in the audit's words. */
    private static final Map<String, String> KINDS = Map.ofEntries(
            Map.entry("tasks", "task"),
            Map.entry("runs", "run"),
            Map.entry("instances", "run"),
            Map.entry("backfills", "backfill"),
            Map.entry("workflows", "workflow"),
            Map.entry("workflow-runs", "workflow-run"),
            Map.entry("workflow-backfills", "workflow-backfill"),
            Map.entry("secrets", "secret"),
            Map.entry("tokens", "token"),
            Map.entry("teams", "team"),
            Map.entry("executors", "executor"),
            Map.entry("executor", "executor"));
    /** Actions whose name the path and method do not say well. */
    private static final Map<String, String> NAMED = Map.of(
            "PUT /api/secrets/{name}", "secret.set",
            "DELETE /api/tokens/{name}", "token.revoke",
            "POST /api/trigger", "task.trigger");

    private final ApiContext api;

    AuditTrail(ApiContext api) {
        this.api = api;
    }

    /** What the request acted on, when the path does not say ({@code task:nightly}, {@code token:alice}). */
    public static void target(Context ctx, String target) {
        ctx.attribute(TARGET, target);
    }

    /** Notes the route a request came by (before its handler runs), for {@link #forTransaction}. */
    static void route(Context ctx, Route route) {
        ctx.attribute(ROUTE, route);
    }

    /**
     * The entry of this request for a service that writes it in the transaction of the change itself (a trigger: its
     * run and its entry commit together); the service fills in the team, target, status and message. If the request
     * then succeeds, nothing more is written for it here; if it fails, the transaction is gone and the refusal is
     * recorded as usual.
     */
    static Entry forTransaction(Context ctx) {
        Route route = ctx.attribute(ROUTE);
        Principal who = Auth.principal(ctx);
        ctx.attribute(IN_TRANSACTION, Boolean.TRUE);
        return new Entry(
                who.name(),
                who.via(),
                null,
                ctx.ip(),
                route == null ? "task.trigger" : action(route),
                null,
                "ok",
                202,
                null,
                null);
    }

    /** The action, when the route's does not say it (a PUT that starts a canary). */
    static void action(Context ctx, String action) {
        ctx.attribute(ACTION, action);
    }

    /** A short word on what came of it ("run 42"); never a secret. */
    public static void note(Context ctx, String note) {
        ctx.attribute(NOTE, note);
    }

    /** What an edit changed, path by path. */
    public static void diff(Context ctx, Object diff) {
        ctx.attribute(DIFF, diff);
    }

    /** The team the request acted for, when its route's scope cannot find it (a thing just deleted). */
    public static void team(Context ctx, String team) {
        ctx.attribute(TEAM, team);
    }

    /** What a handler named with {@link #target}, {@link #note}, {@link #diff} and {@link #team}, for the console's entries. */
    public static String targetOf(Context ctx) {
        return ctx.attribute(TARGET);
    }

    public static String noteOf(Context ctx) {
        return ctx.attribute(NOTE);
    }

    public static Object diffOf(Context ctx) {
        return ctx.attribute(DIFF);
    }

    public static String teamOf(Context ctx) {
        return ctx.attribute(TEAM);
    }

    /** {@code ok} below 400, {@code refused} below 500, else {@code failed}. */
    public static String outcome(int status) {
        return status < 400 ? "ok" : status < 500 ? "refused" : "failed";
    }

    /** A message as entries keep it: at most 2,000 characters. */
    public static String clip(String s) {
        return s == null || s.length() <= MAX_MESSAGE ? s : s.substring(0, MAX_MESSAGE) + "…";
    }

    /**
     * Records the request, if it is one the audit keeps; {@code failure} is what it ended with, or null. An entry that
     * cannot be written (the database went away after the change committed) is logged, and the caller still gets the
     * answer its request earned: a client told "failed" for a change that happened would send it again.
     */
    void record(Context ctx, Route route, Exception failure) {
        try {
            write(ctx, route, failure);
        } catch (RuntimeException e) {
            log.error("audit entry of {} {} not written: {}", ctx.method(), ctx.path(), e.toString());
        }
    }

    private void write(Context ctx, Route route, Exception failure) {
        int status = failure == null ? ctx.statusCode() : ErrorMapper.statusOf(failure);
        boolean refusedCaller = status == 401 || status == 403;
        boolean routine = route.method() == Route.Method.GET
                || route.role() == Role.PUBLIC
                || route.path().startsWith("/api/executor/");
        if ((routine && !refusedCaller) || (failure == null && ctx.attribute(IN_TRANSACTION) != null)) {
            return;
        }
        Principal who = Auth.principal(ctx);
        String outcome = outcome(status);
        String message = failure != null ? failure.getMessage() : ctx.attribute(NOTE);
        Object diff = ctx.attribute(DIFF);
        api.node()
                .audit()
                .record(new Entry(
                        who.name(),
                        who.via(),
                        team(ctx, route, status),
                        ctx.ip(),
                        ctx.attribute(ACTION) != null ? ctx.<String>attribute(ACTION) : action(route),
                        target(ctx, route),
                        outcome,
                        status,
                        clip(message),
                        diff == null ? null : Json.write(diff)));
    }

    private String team(Context ctx, Route route, int status) {
        String named = ctx.attribute(TEAM);
        if (named != null) {
            return named;
        }
        if (route.scope() == Scope.GLOBAL || status == 404 || status == 401) {
            return null;
        }
        Optional<List<String>> owners;
        try {
            owners = Auth.owners(ctx, route, api);
        } catch (RuntimeException e) {
            return null; // the database refused even this: the entry is still written, without its team
        }
        String teams = owners.orElse(List.of()).stream()
                .filter(Objects::nonNull)
                .distinct()
                .collect(Collectors.joining(","));
        return teams.isEmpty() ? null : teams;
    }

    /**
     * {@code task.pause} for {@code POST /api/tasks/{name}/pause}: the kind, then the verb or what the method does. The
     * console names its actions by the API route that does the same, so both write the same word.
     */
    public static String action(Route route) {
        String named = NAMED.get(route.method() + " " + route.path());
        if (named != null) {
            return named;
        }
        String[] segments = route.path().replaceFirst("^/api/", "").split("/");
        StringBuilder action = new StringBuilder(KINDS.getOrDefault(segments[0], segments[0]));
        boolean verb = false;
        for (int i = 1; i < segments.length; i++) {
            if (!segments[i].startsWith("{")) {
                action.append('.').append(segments[i]);
                verb = true;
            }
        }
        if (!verb) {
            boolean one = segments.length > 1;
            action.append('.')
                    .append(
                            switch (route.method()) {
                                case GET -> "read";
                                case POST -> one ? "post" : "create";
                                case PUT -> "update";
                                case DELETE -> "delete";
                            });
        }
        return action.toString().toLowerCase(Locale.ROOT);
    }

    private static String target(Context ctx, Route route) {
        String named = ctx.attribute(TARGET);
        return named != null ? named : target(route, ctx::pathParam);
    }

    /** {@code task:nightly} for {@code /api/tasks/{name}/…} with {@code name} = nightly; null when the path names nothing. */
    public static String target(Route route, UnaryOperator<String> pathParam) {
        String[] segments = route.path().replaceFirst("^/api/", "").split("/");
        if (segments.length > 1 && segments[1].startsWith("{")) {
            String param = segments[1].substring(1, segments[1].length() - 1);
            return KINDS.getOrDefault(segments[0], segments[0]) + ":" + pathParam.apply(param);
        }
        return null;
    }
}
