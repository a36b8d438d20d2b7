package dev.ax.console;

import dev.ax.domain.access.Role;
import dev.ax.api.Route;
import dev.ax.api.Routes;
import java.util.EnumMap;
import java.util.Map;

/**
 * What each console action needs, read from the API's own route table: the console button and
 * the API endpoint that do the same thing can never disagree on who may do it. The services the
 * console then calls are the API's, so their own checks (approvers, four eyes) apply as well.
 */
public final class Permissions {
    /** Every action the console offers, with the API route that does the same. */
    public enum Action {
        CREATE_TASK(Route.Method.POST, "/api/tasks"),
        EDIT_TASK(Route.Method.PUT, "/api/tasks/{name}"),
        DELETE_TASK(Route.Method.DELETE, "/api/tasks/{name}"),
        PAUSE_TASK(Route.Method.POST, "/api/tasks/{name}/pause"),
        RESUME_TASK(Route.Method.POST, "/api/tasks/{name}/resume"),
        TRIGGER_TASK(Route.Method.POST, "/api/tasks/{name}/trigger"),
        TERMINATE_RUN(Route.Method.POST, "/api/instances/{id}/terminate"),
        CANCEL_RUN(Route.Method.POST, "/api/instances/{id}/cancel"),
        RETRY_RUN(Route.Method.POST, "/api/instances/{id}/retry"),
        RERUN_RUN(Route.Method.POST, "/api/instances/{id}/rerun"),
        APPROVE_RUN(Route.Method.POST, "/api/instances/{id}/approve"),
        REJECT_RUN(Route.Method.POST, "/api/instances/{id}/reject"),
        RERUN_WORKFLOW(Route.Method.POST, "/api/workflow-runs/{id}/rerun"),
        PROMOTE_CANARY(Route.Method.POST, "/api/tasks/{name}/canary/promote"),
        ROLLBACK_CANARY(Route.Method.POST, "/api/tasks/{name}/canary/rollback"),
        TEST_RUN(Route.Method.POST, "/api/tasks/{name}/test-run");

        final Route.Method method;
        final String apiPath;

        Action(Route.Method method, String apiPath) {
            this.method = method;
            this.apiPath = apiPath;
        }
    }

    private static final Map<Action, Role> REQUIRED = load();

    private Permissions() {
    }

    public static Role required(Action action) {
        return REQUIRED.get(action);
    }

    private static Map<Action, Role> load() {
        Map<Action, Role> roles = new EnumMap<>(Action.class);
        for (Route r : Routes.table(null)) {
            for (Action a : Action.values()) {
                if (a.method == r.method() && a.apiPath.equals(r.path())) {
                    roles.put(a, r.role());
                }
            }
        }
        for (Action a : Action.values()) {
            if (!roles.containsKey(a)) {
                throw new IllegalStateException("the API has no route " + a.method + " " + a.apiPath + " for console action " + a);
            }
        }
        return roles;
    }
}
