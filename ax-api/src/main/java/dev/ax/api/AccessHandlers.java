package dev.ax.api;

import dev.ax.api.Views.Page;
import dev.ax.domain.access.Principal;
import dev.ax.domain.access.Role;
import dev.ax.scheduler.Tokens;
import dev.ax.store.AuditStore.AuditRow;
import dev.ax.store.AuditStore.Filter;
import dev.ax.store.Json;
import dev.ax.store.Store;
import dev.ax.store.TeamStore.TeamRow;
import dev.ax.store.TokenStore.TokenRow;
import io.javalin.http.Context;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Who may do what: the caller ({@code /api/me}), tokens (made by admins, shown once; listed and revoked by their owner
 * too), teams, and the audit log.
 */
final class AccessHandlers {
    private static final int DEFAULT_AUDIT_LIMIT = 100;

    private final ApiContext api;

    AccessHandlers(ApiContext api) {
        this.api = api;
    }

    /** The caller: their name (the actor recorded), how they signed in, their roles. */
    record MeView(String name, String via, String role, Map<String, String> teams, List<String> groups) {
        static MeView of(Principal p) {
            return new MeView(
                    p.name(),
                    p.via(),
                    p.grants().role().wireName(),
                    roles(p.grants().teams()),
                    p.grants().groups());
        }
    }

    /** A token as lists show it: never its value. */
    record TokenView(
            String name,
            String owner,
            String role,
            Map<String, String> teams,
            List<String> groups,
            Instant createdAt,
            String createdBy,
            Instant expiresAt,
            Instant lastUsedAt,
            boolean expired) {
        static TokenView of(TokenRow t, Instant now) {
            return new TokenView(
                    t.name(),
                    t.owner(),
                    t.role() == null ? "unknown" : t.role().wireName(),
                    roles(t.teams()),
                    t.groups(),
                    t.createdAt(),
                    t.createdBy(),
                    t.expiresAt(),
                    t.lastUsedAt(),
                    t.expiredAt(now));
        }
    }

    /** The answer to a new token: the token itself, this once, and what it may do. */
    record MadeView(String token, TokenView info) {}

    record TeamView(String name, String description, Instant createdAt, String createdBy) {
        static TeamView of(TeamRow t) {
            return new TeamView(t.name(), t.description(), t.createdAt(), t.createdBy());
        }
    }

    /** A team with what belongs to it and who holds a role in it through a token. */
    record TeamDetail(
            String name,
            String description,
            Instant createdAt,
            String createdBy,
            List<String> tasks,
            List<String> workflows,
            Map<String, String> members) {}

    record AuditView(
            long id,
            Instant at,
            String actor,
            String via,
            String team,
            String address,
            String action,
            String target,
            String outcome,
            int status,
            String message,
            Object diff) {
        static AuditView of(AuditRow r) {
            var e = r.entry();
            return new AuditView(
                    r.id(),
                    r.at(),
                    e.actor(),
                    e.via(),
                    e.team(),
                    e.address(),
                    e.action(),
                    e.target(),
                    e.outcome(),
                    e.status(),
                    e.message(),
                    e.diff() == null ? null : Json.readList(e.diff()));
        }
    }

    void me(Context ctx) {
        ctx.json(MeView.of(Auth.principal(ctx)));
    }

    void createToken(Context ctx) {
        Tokens.Made made = api.node().tokens().create(Bodies.tree(ctx, api.json()), Auth.actor(ctx));
        TokenView view = TokenView.of(made.row(), now());
        AuditTrail.target(ctx, "token:" + view.name());
        AuditTrail.note(
                ctx,
                "for " + view.owner() + ": " + made.row().grants().describe()
                        + (view.expiresAt() == null ? "" : "; expires " + view.expiresAt()));
        ctx.status(201).json(new MadeView(made.token(), view));
    }

    /** An admin sees every token (or one person's, {@code ?owner=}); everyone else their own. */
    void listTokens(Context ctx) {
        Principal who = Auth.principal(ctx);
        String owner = Params.string(ctx, "owner");
        boolean admin = who.grants().allows(Role.ADMIN, null);
        if (!admin && owner != null && !owner.equals(who.name())) {
            throw ApiException.forbidden(who.name() + " may list only their own tokens; an admin lists everyone's");
        }
        Instant now = now();
        List<TokenView> items = api.node().tokens().list(admin ? owner : who.name()).stream()
                .map(t -> TokenView.of(t, now))
                .toList();
        ctx.json(Page.of(items));
    }

    /** An admin revokes any token; everyone else only their own. */
    void revokeToken(Context ctx) {
        Principal who = Auth.principal(ctx);
        String name = ctx.pathParam("name");
        if (!who.grants().allows(Role.ADMIN, null)) {
            TokenRow t = api.node().tokens().get(name);
            if (!t.owner().equals(who.name())) {
                throw ApiException.forbidden(who.name() + " may revoke only their own tokens; " + name + " is "
                        + t.owner() + "'s (an admin revokes anyone's)");
            }
        }
        TokenRow revoked = api.node().tokens().revoke(name, who.name());
        api.auth().forget(name);
        AuditTrail.note(ctx, "revoked " + revoked.owner() + "'s token " + name);
        ctx.status(204);
    }

    void createTeam(Context ctx) {
        TeamRow team = api.node().teams().create(Bodies.tree(ctx, api.json()), Auth.actor(ctx));
        AuditTrail.target(ctx, "team:" + team.name());
        AuditTrail.team(ctx, team.name());
        ctx.status(201).json(TeamView.of(team));
    }

    void listTeams(Context ctx) {
        ctx.json(Page.of(api.node().teams().list().stream().map(TeamView::of).toList()));
    }

    void team(Context ctx) {
        TeamRow t = api.node().teams().get(ctx.pathParam("name"));
        Store store = api.store();
        ctx.json(store.tx(tx -> {
            Map<String, String> members = new LinkedHashMap<>();
            for (TokenRow token : store.tokens().list(tx, null)) {
                Role role = token.teams().get(t.name());
                if (role != null) {
                    members.put(token.name(), role.wireName());
                }
            }
            return new TeamDetail(
                    t.name(),
                    t.description(),
                    t.createdAt(),
                    t.createdBy(),
                    store.teams().tasksOf(tx, t.name()),
                    store.teams().workflowsOf(tx, t.name()),
                    members);
        }));
    }

    void deleteTeam(Context ctx) {
        String name = ctx.pathParam("name");
        api.node().teams().delete(name, Auth.actor(ctx));
        AuditTrail.team(ctx, name);
        ctx.status(204);
    }

    /** {@code ?actor=&team=&target=&from=&to=&cursor=&limit=}; {@code from}/{@code to} are instants or dates (UTC). */
    void audit(Context ctx) {
        int limit = Params.limit(ctx, DEFAULT_AUDIT_LIMIT);
        long before = Cursor.idBefore(Params.string(ctx, "cursor"));
        Filter filter = AuditQuery.filter(
                Params.string(ctx, "actor"),
                Params.string(ctx, "team"),
                Params.string(ctx, "target"),
                Params.string(ctx, "from"),
                Params.string(ctx, "to"),
                before,
                limit + 1);
        List<AuditRow> rows = api.node().audit().list(filter);
        boolean more = rows.size() > limit;
        List<AuditRow> page = more ? rows.subList(0, limit) : rows;
        ctx.json(new Page<>(
                page.stream().map(AuditView::of).toList(),
                more ? Cursor.ofId(page.getLast().id()) : null));
    }

    private Instant now() {
        return api.node().context().clock().now();
    }

    static Map<String, String> roles(Map<String, Role> teams) {
        Map<String, String> m = new LinkedHashMap<>();
        teams.forEach((team, role) -> m.put(team, role.wireName()));
        return m;
    }
}
