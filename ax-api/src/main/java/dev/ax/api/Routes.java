package dev.ax.api;

import static dev.ax.api.Route.delete;
import static dev.ax.api.Route.get;
import static dev.ax.api.Route.post;
import static dev.ax.api.Route.put;
import static dev.ax.domain.access.Role.ADMIN;
import static dev.ax.domain.access.Role.EXECUTOR;
import static dev.ax.domain.access.Role.OPERATOR;
import static dev.ax.domain.access.Role.PUBLIC;
import static dev.ax.domain.access.Role.VIEWER;

import java.util.ArrayList;
import java.util.List;

/** The route table: every endpoint of the API, who may call it, and which handler serves it. */
public final class Routes {
    private Routes() {}

    /** {@code api} may be null when only the table itself is wanted (the OpenAPI test). */
    public static List<Route> table(ApiContext api) {
        List<Route> routes = current(api);
        List<Route> all = new ArrayList<>(routes);
        routes.stream()
                .filter(r -> r.path().startsWith(RUNS))
                .map(Routes::oldPath)
                .forEach(all::add);
        return List.copyOf(all);
    }

    /** Runs were "instances" in the API's paths of earlier versions: those paths stay, the same routes under the old name. */
    static final String RUNS = "/api/runs";

    static final String OLD_RUNS = "/api/instances";

    private static Route oldPath(Route r) {
        return new Route(
                r.method(),
                OLD_RUNS + r.path().substring(RUNS.length()),
                r.role(),
                r.scope(),
                r.summary() + " (the old path of " + r.path() + ")",
                r.handler());
    }

    private static List<Route> current(ApiContext api) {
        TaskHandlers t = new TaskHandlers(api);
        RunHandlers i = new RunHandlers(api);
        SystemHandlers s = new SystemHandlers(api);
        ExecutorHandlers e = new ExecutorHandlers(api);
        ApprovalHandlers a = new ApprovalHandlers(api);
        BackfillHandlers b = new BackfillHandlers(api);
        WorkflowHandlers w = new WorkflowHandlers(api);
        CanaryHandlers c = new CanaryHandlers(api);
        SecretHandlers k = new SecretHandlers(api);
        AccessHandlers x = new AccessHandlers(api);
        return List.of(
                get("/healthz", PUBLIC, "Node and database health", s::health),
                get("/metrics", PUBLIC, "Prometheus metrics of this node", s::metrics),
                get("/api/openapi.json", PUBLIC, "This API as an OpenAPI 3.1 document", s::openApi),
                post("/api/tasks", ADMIN, Scope.NEW_TASK, "Create a task from its JSON definition", t::create),
                get("/api/tasks", VIEWER, "List tasks by name", t::list),
                get("/api/tasks/{name}", VIEWER, "One task", t::get),
                put(
                        "/api/tasks/{name}",
                        ADMIN,
                        Scope.TASK_EDIT,
                        "Replace a task's definition (a new version); ?rollout=canary&percent=N|runs=N stages it as a canary",
                        t::update),
                post(
                        "/api/tasks/{name}/canary/promote",
                        ADMIN,
                        Scope.TASK,
                        "Make a task's canary its current version",
                        c::promote),
                post(
                        "/api/tasks/{name}/canary/rollback",
                        OPERATOR,
                        Scope.TASK,
                        "Drop a task's canary; new runs use the stable version",
                        c::rollback),
                post(
                        "/api/tasks/{name}/test-run",
                        ADMIN,
                        Scope.TEST_RUN,
                        "Run a draft definition once as a test, without saving it",
                        c::testRun),
                delete(
                        "/api/tasks/{name}",
                        ADMIN,
                        Scope.TASK,
                        "Delete a task; its waiting runs are canceled",
                        t::delete),
                post("/api/tasks/{name}/pause", OPERATOR, Scope.TASK, "Pause a task", t::pause),
                post("/api/tasks/{name}/resume", OPERATOR, Scope.TASK, "Resume a task", t::resume),
                get(
                        "/api/tasks/{name}/versions",
                        VIEWER,
                        "A task's audit log: versions with diff and actor",
                        t::versions),
                get(
                        "/api/tasks/{name}/events",
                        VIEWER,
                        "A task's timeline, newest first: its events and its runs' events beyond the routine",
                        t::events),
                post("/api/tasks/{name}/trigger", OPERATOR, Scope.TASK, "Run a task now, by hand", t::triggerManual),
                post(
                        "/api/tasks/{name}/backfill",
                        OPERATOR,
                        Scope.TASK,
                        "Run a task for every slot of a date range (or a dry run)",
                        b::start),
                get("/api/backfills/{id}", VIEWER, "A backfill's progress", b::get),
                post(
                        "/api/backfills/{id}/pause",
                        OPERATOR,
                        Scope.BACKFILL,
                        "Pause a backfill: no new runs until resumed",
                        b::pause),
                post("/api/backfills/{id}/resume", OPERATOR, Scope.BACKFILL, "Resume a paused backfill", b::resume),
                post(
                        "/api/backfills/{id}/cancel",
                        OPERATOR,
                        Scope.BACKFILL,
                        "Cancel a backfill and its runs that have not started",
                        b::cancel),
                post(
                        "/api/trigger",
                        OPERATOR,
                        Scope.TASK_IN_BODY,
                        "Run a task now, for an event from another system",
                        t::triggerEvent),
                post(
                        "/api/workflows",
                        ADMIN,
                        Scope.NEW_WORKFLOW,
                        "Create a workflow: tasks as nodes, edges, one trigger",
                        w::create),
                get("/api/workflows", VIEWER, "List workflows by name", w::list),
                get("/api/workflows/{name}", VIEWER, "One workflow", w::get),
                put(
                        "/api/workflows/{name}",
                        ADMIN,
                        Scope.WORKFLOW_EDIT,
                        "Replace a workflow's definition (a new version)",
                        w::update),
                delete(
                        "/api/workflows/{name}",
                        ADMIN,
                        Scope.WORKFLOW,
                        "Delete a workflow; its runs go on and stay readable",
                        w::delete),
                post(
                        "/api/workflows/{name}/trigger",
                        OPERATOR,
                        Scope.WORKFLOW,
                        "Run a workflow now, by hand",
                        w::trigger),
                post(
                        "/api/workflows/{name}/backfill",
                        OPERATOR,
                        Scope.WORKFLOW,
                        "Run a workflow for every slot of a date range (or a dry run)",
                        w::backfill),
                get(
                        "/api/workflow-backfills/{id}",
                        VIEWER,
                        "A workflow backfill's progress and runs",
                        w::backfillProgress),
                get("/api/workflow-runs", VIEWER, "List workflow runs, newest first", w::runs),
                get("/api/workflow-runs/{id}", VIEWER, "A workflow run: its graph with node states", w::run),
                post(
                        "/api/workflow-runs/{id}/rerun",
                        OPERATOR,
                        Scope.WORKFLOW_RUN,
                        "Run a finished workflow run again from a node and its descendants",
                        w::rerun),
                post(
                        "/api/workflow-runs/{id}/cancel",
                        OPERATOR,
                        Scope.WORKFLOW_RUN,
                        "Cancel a running workflow run: what has not run is skipped",
                        w::cancel),
                put(
                        "/api/secrets/{name}",
                        ADMIN,
                        "Set a secret's value: 201 when new, 200 when replaced; the answer never holds the value",
                        k::set),
                get("/api/secrets", ADMIN, "List secrets: names, who set them when, key ids; never values", k::list),
                delete("/api/secrets/{name}", ADMIN, "Delete a secret no task uses", k::delete),
                post(
                        "/api/secrets/rotate-key",
                        ADMIN,
                        "Seal every secret with a new key (key file only; with AX_SECRET_KEY, 409 says how)",
                        k::rotateKey),
                get(
                        "/api/me",
                        VIEWER,
                        "Who the token is: its owner, how it signed in, its roles everywhere and per team",
                        x::me),
                post(
                        "/api/tokens",
                        ADMIN,
                        "Make a token for a person or a machine; the answer holds it, shown once",
                        x::createToken),
                get(
                        "/api/tokens",
                        VIEWER,
                        "List tokens (never their values): every token for an admin, one's own for everyone else",
                        x::listTokens),
                delete(
                        "/api/tokens/{name}",
                        VIEWER,
                        "Revoke a token at once: an admin any, everyone their own",
                        x::revokeToken),
                post("/api/teams", ADMIN, "Create a team that tasks and workflows can belong to", x::createTeam),
                get("/api/teams", VIEWER, "List teams", x::listTeams),
                get(
                        "/api/teams/{name}",
                        VIEWER,
                        "One team: its tasks, workflows and the tokens with a role in it",
                        x::team),
                delete("/api/teams/{name}", ADMIN, "Delete a team nothing belongs to any more", x::deleteTeam),
                get(
                        "/api/audit",
                        ADMIN,
                        Scope.AUDIT,
                        "The audit log, newest first: every action with actor, team, address, target, outcome",
                        x::audit),
                get(
                        "/api/admin/backup",
                        ADMIN,
                        "An online backup of the embedded database, as a zip (PostgreSQL: 409, use pg_dump)",
                        s::backup),
                get("/api/cron/next", VIEWER, "The next slots of a cron expression", s::cronNext),
                get("/api/executors", VIEWER, "Executors that registered, and whether they are online", s::executors),
                get("/api/runs", VIEWER, "List runs, newest first", i::list),
                get("/api/runs/{id}", VIEWER, "One run, with its trigger chain and why it waits", i::get),
                get("/api/runs/{id}/events", VIEWER, "A run's events, oldest first", i::events),
                get("/api/runs/{id}/log", VIEWER, "A run's output", i::log),
                post(
                        "/api/runs/{id}/terminate",
                        OPERATOR,
                        Scope.RUN,
                        "Stop a RUNNING run; its process tree is killed",
                        i::terminate),
                post(
                        "/api/runs/{id}/cancel",
                        OPERATOR,
                        Scope.RUN,
                        "Withdraw a run that has not started or waits to retry",
                        i::cancel),
                post(
                        "/api/runs/{id}/complete",
                        OPERATOR,
                        Scope.RUN,
                        "An async HTTP action's service reports how the attempt ended",
                        i::complete),
                post(
                        "/api/runs/{id}/retry",
                        OPERATOR,
                        Scope.RUN,
                        "Run a failed, terminated or canceled run again, as it was",
                        i::retry),
                post(
                        "/api/runs/{id}/rerun",
                        OPERATOR,
                        Scope.RUN,
                        "Run a finished run again with the task's current version",
                        i::rerun),
                get(
                        "/api/runs/{id}/approval",
                        VIEWER,
                        "A run's approval request: who may decide, deadline, preview output",
                        a::get),
                post(
                        "/api/runs/{id}/approve",
                        VIEWER,
                        "Approve a run waiting for approval (the task's approvers decide who may)",
                        a::approve),
                post("/api/runs/{id}/reject", VIEWER, "Reject a run waiting for approval; it is canceled", a::reject),
                post(
                        "/api/runs/{id}/approval-request",
                        OPERATOR,
                        Scope.RUN,
                        "A running job asks a person to confirm before it goes on",
                        a::request),
                post("/api/executor/register", EXECUTOR, "Executor protocol: (re)register", e::register),
                post("/api/executor/poll", EXECUTOR, "Executor protocol: long-poll for work", e::poll),
                post("/api/executor/heartbeat", EXECUTOR, "Executor protocol: renew leases", e::heartbeat),
                post("/api/executor/started", EXECUTOR, "Executor protocol: a run's process started", e::started),
                post("/api/executor/log", EXECUTOR, "Executor protocol: output lines", e::log),
                post("/api/executor/complete", EXECUTOR, "Executor protocol: how an attempt ended", e::complete),
                post(
                        "/api/executor/approval-request",
                        EXECUTOR,
                        "Executor protocol: a running handler asks for approval",
                        e::requestApproval),
                post(
                        "/api/executor/run-state",
                        EXECUTOR,
                        "Executor protocol: the state of a run the executor holds",
                        e::runState));
    }
}
