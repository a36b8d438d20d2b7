package dev.ax.console;

import dev.ax.api.Scope;
import dev.ax.console.Console.Refused;
import dev.ax.console.Permissions.Action;
import dev.ax.console.Session.Who;
import dev.ax.domain.access.Grants;
import dev.ax.domain.access.Principal;
import dev.ax.domain.access.Role;
import dev.ax.domain.task.ValidationException;
import dev.ax.store.Store;
import dev.ax.store.TeamStore.Owner;
import io.javalin.http.Context;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.BiFunction;
import java.util.stream.Collectors;

/**
 * Whether a person may do an action on what it acts on, decided as the API's {@code Auth} decides it: the action's
 * role held everywhere, or, where a team grant could decide, in every team that owns the target. Which team owns it
 * follows the API route's {@link Scope}, read from the console's request: the task of the path, a run's task, a
 * workflow run's workflow, the team a submitted definition names (and, for an edit, the task's team now).
 *
 * <p>A target that does not exist passes, as in the API: the service then says so (404), and nothing is told that
 * every viewer could not read anyway.
 */
final class Access {
    private static final String OWNERS = "ax.console.owners";

    /** The teams owning what a request acts on; empty when it does not exist (or the request cannot be read). */
    @FunctionalInterface
    private interface Owners {
        Optional<List<String>> of(ConsoleContext c, Context ctx);
    }

    /** Every scope a console action's API route has; one the console cannot find is an error at start-up ({@link #check}). */
    private static final Map<Scope, Owners> SCOPES = Map.of(
            Scope.GLOBAL, (c, ctx) -> Optional.of(teamless()),
            Scope.TASK, (c, ctx) -> ofTask(c, ctx.pathParam("name")),
            Scope.NEW_TASK, (c, ctx) -> ofDraft(ctx),
            Scope.TASK_EDIT, Access::edited,
            Scope.TEST_RUN, Access::edited,
            Scope.RUN,
                    (c, ctx) -> byId(
                            c, ctx, (store, id) -> store.tx(tx -> store.teams().ownerOfRun(tx, id))),
            Scope.WORKFLOW_RUN,
                    (c, ctx) -> byId(
                            c, ctx, (store, id) -> store.tx(tx -> store.teams().ownerOfWorkflowRun(tx, id))),
            Scope.AUDIT, (c, ctx) -> Optional.of(teamsOf(ctx.queryParam("team"))));

    private Access() {}

    /** Fails when an action's API route has a scope this class cannot find the team of. */
    static void check() {
        for (Action a : Action.values()) {
            if (!SCOPES.containsKey(Permissions.scope(a))) {
                throw new IllegalStateException("console action " + a + " has an API scope the console does not know");
            }
        }
    }

    /** Refuses unless {@code who} may do {@code action} on what the request names. */
    static void require(ConsoleContext c, Context ctx, Who who, Action action) {
        require(who, action, owners(c, ctx, action));
    }

    /** Refuses unless {@code who} may do {@code action} on something owned by {@code owners} (empty: it does not exist). */
    static void require(Who who, Action action, Optional<List<String>> owners) {
        Role needed = Permissions.required(action);
        Grants g = who.principal().grants();
        if (g.allows(needed, null)) {
            return;
        }
        if (g.mayDependOnTeam(needed) && (owners.isEmpty() || g.allowsAll(needed, owners.get()))) {
            return;
        }
        throw refusal(who.principal(), action, owners.orElse(List.of()));
    }

    /** Refuses unless {@code who} may do {@code action} on things of no team: tokens, teams, the whole audit log. */
    static void requireEverywhere(Who who, Action action) {
        require(who, action, Optional.of(teamless()));
    }

    /** For a page that leads to an action on something not chosen yet (the new-task editor): the role in some team will do. */
    static void requireSomeTeam(Who who, Action action) {
        Role needed = Permissions.required(action);
        if (!who.mayInSomeTeam(needed)) {
            String name = who.name();
            String grants = who.principal().grants().describe();
            throw new Refused(
                    name + " (" + grants + ") may not " + action.phrase() + ": that needs " + needed.wireName()
                            + " in a team, or " + needed.wireName() + " everywhere",
                    t -> t.text(
                            "refused.may_not",
                            name,
                            grants,
                            t.text("action." + action.name()),
                            t.text("refused.needs_some_team", needed.wireName())));
        }
    }

    /** The teams owning the request's target, found once per request: the audit entry records them too. */
    static Optional<List<String>> owners(ConsoleContext c, Context ctx, Action action) {
        Optional<List<String>> cached = ctx.attribute(OWNERS);
        if (cached == null) {
            cached = SCOPES.get(Permissions.scope(action)).of(c, ctx);
            ctx.attribute(OWNERS, cached);
        }
        return cached;
    }

    /** The teams of a task (a list holding null: it has none); empty when there is no such task. */
    static Optional<List<String>> ofTask(ConsoleContext c, String name) {
        Store store = c.store();
        return store.tx(tx -> store.teams().ownerOfTask(tx, name)).map(o -> teamsOf(o.team()));
    }

    /** The teams as the audit log records them: "data", "data,web", or null for none. */
    static String teamColumn(Optional<List<String>> owners) {
        String teams = owners.orElse(List.of()).stream()
                .filter(Objects::nonNull)
                .distinct()
                .collect(Collectors.joining(","));
        return teams.isEmpty() ? null : teams;
    }

    /**
     * "alice (viewer; operator in data) may not pause a task of team finance: that needs operator in team finance, or
     * operator everywhere" — who they are, what they tried, and who would be allowed, in the API's words.
     */
    static Refused refusal(Principal p, Action action, List<String> owners) {
        Role needed = Permissions.required(action);
        List<String> teams = owners.stream()
                .filter(t -> t != null && !needed.admits(p.roleIn(t)))
                .distinct()
                .toList();
        boolean teamless = owners.stream().anyMatch(Objects::isNull);
        String of = "";
        if (Permissions.scope(action) != Scope.GLOBAL) {
            // "of no team" only for someone whose team grants might have been thought to reach it.
            of = teamless
                    ? (p.grants().teams().isEmpty() ? "" : " of no team")
                    : teams.isEmpty() ? "" : " of team " + String.join(" and ", teams);
        }
        String needs = teamless || teams.isEmpty()
                ? needed.wireName() + " everywhere"
                : needed.wireName() + " in team " + String.join(" and ", teams) + ", or " + needed.wireName()
                        + " everywhere";
        String ofTeams = of;
        return new Refused(
                p.name() + " (" + p.grants().describe() + ") may not " + action.phrase() + of + ": that needs " + needs,
                t -> {
                    String list = String.join(t.text("refused.team_separator"), teams);
                    String target = ofTeams.isEmpty()
                            ? ""
                            : teamless ? t.text("refused.of_no_team") : t.text("refused.of_team", list);
                    String need = teamless || teams.isEmpty()
                            ? t.text("refused.needs_everywhere", needed.wireName())
                            : t.text("refused.needs_team", needed.wireName(), list);
                    return t.text(
                            "refused.may_not",
                            p.name(),
                            p.grants().describe(),
                            t.text("action." + action.name()) + target,
                            need);
                });
    }

    // ---- finding the owners -------------------------------------------------------------------------------------

    private static List<String> teamless() {
        return Arrays.asList((String) null);
    }

    static List<String> teamsOf(Object team) {
        return team instanceof String t && !t.isBlank() ? List.of(t.strip()) : teamless();
    }

    /** The team the editor's definition names; empty when the text is no JSON object (the editor then says why, 400). */
    private static Optional<List<String>> ofDraft(Context ctx) {
        try {
            return TaskPages.parse(ctx.formParam("definition")) instanceof Map<?, ?> m
                    ? Optional.of(teamsOf(m.get("team")))
                    : Optional.empty();
        } catch (ValidationException e) {
            return Optional.empty();
        }
    }

    /** An edit or a draft of a task: its team now (when it exists) and the one the new definition names. */
    private static Optional<List<String>> edited(ConsoleContext c, Context ctx) {
        Optional<List<String>> after = ofDraft(ctx);
        if (after.isEmpty()) {
            return Optional.empty();
        }
        List<String> both = new ArrayList<>(ofTask(c, ctx.pathParam("name")).orElse(List.of()));
        both.addAll(after.get());
        return Optional.of(both);
    }

    private static Optional<List<String>> byId(
            ConsoleContext c, Context ctx, BiFunction<Store, Long, Optional<Owner>> query) {
        long id;
        try {
            id = Long.parseLong(ctx.pathParam("id"));
        } catch (NumberFormatException e) {
            return Optional.empty(); // the handler refuses the id
        }
        return query.apply(c.store(), id).map(o -> teamsOf(o.team()));
    }
}
