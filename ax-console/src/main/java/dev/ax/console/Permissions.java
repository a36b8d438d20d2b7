package dev.ax.console;

import dev.ax.api.AuditTrail;
import dev.ax.api.Route;
import dev.ax.api.Routes;
import dev.ax.api.Scope;
import dev.ax.domain.access.Role;
import java.util.EnumMap;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * What each console action needs, read from the API's own route table: the console button and
 * the API endpoint that do the same thing can never disagree on who may do it, nor on whose team
 * counts ({@link Scope}), nor on the name the audit log gives it. The services the console then
 * calls are the API's, so their own checks (approvers, four eyes) apply as well.
 */
public final class Permissions {
    /** Every action the console offers, with the API route that does the same and how a refusal names it. */
    public enum Action {
        CREATE_TASK(Route.Method.POST, "/api/tasks", "create a task"),
        EDIT_TASK(Route.Method.PUT, "/api/tasks/{name}", "edit a task"),
        DELETE_TASK(Route.Method.DELETE, "/api/tasks/{name}", "delete a task"),
        PAUSE_TASK(Route.Method.POST, "/api/tasks/{name}/pause", "pause a task"),
        RESUME_TASK(Route.Method.POST, "/api/tasks/{name}/resume", "resume a task"),
        TRIGGER_TASK(Route.Method.POST, "/api/tasks/{name}/trigger", "trigger a task"),
        TERMINATE_RUN(Route.Method.POST, "/api/runs/{id}/terminate", "terminate a run"),
        CANCEL_RUN(Route.Method.POST, "/api/runs/{id}/cancel", "cancel a run"),
        RETRY_RUN(Route.Method.POST, "/api/runs/{id}/retry", "retry a run"),
        RERUN_RUN(Route.Method.POST, "/api/runs/{id}/rerun", "re-run a run"),
        APPROVE_RUN(Route.Method.POST, "/api/runs/{id}/approve", "approve a run"),
        REJECT_RUN(Route.Method.POST, "/api/runs/{id}/reject", "reject a run"),
        RERUN_WORKFLOW(Route.Method.POST, "/api/workflow-runs/{id}/rerun", "re-run a workflow run"),
        PROMOTE_CANARY(Route.Method.POST, "/api/tasks/{name}/canary/promote", "promote a canary"),
        ROLLBACK_CANARY(Route.Method.POST, "/api/tasks/{name}/canary/rollback", "roll back a canary"),
        TEST_RUN(Route.Method.POST, "/api/tasks/{name}/test-run", "test-run a draft of a task"),
        CREATE_TOKEN(Route.Method.POST, "/api/tokens", "make a token"),
        REVOKE_TOKEN(Route.Method.DELETE, "/api/tokens/{name}", "revoke a token"),
        CREATE_TEAM(Route.Method.POST, "/api/teams", "create a team"),
        DELETE_TEAM(Route.Method.DELETE, "/api/teams/{name}", "delete a team"),
        /** A page, not a change: the audit log, whole for a global admin, one team's for that team's admins. */
        READ_AUDIT(Route.Method.GET, "/api/audit", "read the audit log");

        final Route.Method method;
        final String apiPath;
        final String phrase;

        Action(Route.Method method, String apiPath, String phrase) {
            this.method = method;
            this.apiPath = apiPath;
            this.phrase = phrase;
        }

        /** How a refusal names it: "pause a task". */
        public String phrase() {
            return phrase;
        }
    }

    private static final Map<Action, Route> ROUTES = load();

    private Permissions() {}

    public static Role required(Action action) {
        return ROUTES.get(action).role();
    }

    /** Whose team counts for the action: the API route's own scope. */
    static Scope scope(Action action) {
        return ROUTES.get(action).scope();
    }

    /** The action's name in the audit log, the API's word for it ({@code task.pause}). */
    static String auditName(Action action) {
        return AuditTrail.action(ROUTES.get(action));
    }

    /** What the action acts on, in the audit's words ({@code task:nightly}), from the request's path; null when it names nothing. */
    static String auditTarget(Action action, UnaryOperator<String> pathParam) {
        return AuditTrail.target(ROUTES.get(action), pathParam);
    }

    private static Map<Action, Route> load() {
        Map<Action, Route> routes = new EnumMap<>(Action.class);
        for (Route r : Routes.table(null)) {
            for (Action a : Action.values()) {
                if (a.method == r.method() && a.apiPath.equals(r.path())) {
                    routes.put(a, r);
                }
            }
        }
        for (Action a : Action.values()) {
            if (!routes.containsKey(a)) {
                throw new IllegalStateException(
                        "the API has no route " + a.method + " " + a.apiPath + " for console action " + a);
            }
        }
        return routes;
    }
}
