package dev.ax.api;

import dev.ax.domain.access.Grants;
import dev.ax.domain.access.Principal;
import dev.ax.domain.access.Role;
import dev.ax.domain.time.AxClock;
import dev.ax.store.Store;
import dev.ax.store.TokenStore;
import dev.ax.store.TokenStore.TokenRow;
import io.javalin.http.Context;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * Who is calling, and whether they may: {@code Authorization: Bearer <token>} → a {@link Principal} (the token's owner,
 * recorded as the actor of what it changes, and its grants), checked against the route's role and, where a team grant
 * could decide, the team that owns the route's target ({@link Scope}).
 *
 * <p>Lookups are cached by hash for {@link #DEFAULT_CACHE_TTL}, because executors heartbeat and poll constantly: a
 * token revoked on this node is dropped from its cache at once ({@link #forget}); another node of a cluster refuses it
 * within that time. Unknown tokens are not cached, so a token made a moment ago works at once. An expired token is
 * refused from the moment it expires, cached or not (by the database's clock, as this node sees it).
 */
public final class Auth {
    public static final Duration DEFAULT_CACHE_TTL = Duration.ofSeconds(1);
    /** A token's last use is written at most this often per node. */
    static final Duration TOUCH_EVERY = Duration.ofMinutes(1);

    private static final String PRINCIPAL = "ax.principal";
    private static final String OWNERS = "ax.owners";
    private static final String BEARER = "bearer ";

    private record Cached(
            Principal principal, long tokenId, Instant expiresAt, long cachedAtNanos, long touchedAtNanos) {}

    private final Store store;
    private final AxClock clock;
    private final long ttlNanos;
    private final ConcurrentHashMap<String, Cached> cache = new ConcurrentHashMap<>();

    public Auth(Store store, AxClock clock, Duration ttl) {
        this.store = store;
        this.clock = clock;
        this.ttlNanos = ttl.toNanos();
    }

    /** Checks the caller may use {@code route}; remembers who it is on the context. */
    void require(Context ctx, Route route, ApiContext api) {
        Principal p = authenticate(ctx, route.role());
        ctx.attribute(PRINCIPAL, p);
        authorize(ctx, route, p, api);
    }

    /** The caller's principal: anonymous for a public route, else the token's (401 when there is none that works). */
    Principal authenticate(Context ctx, Role required) {
        if (required == Role.PUBLIC) {
            return Principal.ANONYMOUS;
        }
        String token = bearer(ctx.header("Authorization"))
                .orElseThrow(() -> ApiException.unauthorized("missing token: send 'Authorization: Bearer <token>'"));
        // A revoked or expired token is refused in the name of whom it acted for, so the audit says who tried.
        return principalOf(token, refused -> ctx.attribute(PRINCIPAL, refused));
    }

    /** The principal of a token, or a 401 that says why not (unknown, revoked — when and by whom —, expired). */
    public Principal principalOf(String token) {
        return principalOf(token, refused -> {});
    }

    /** As above; {@code refusedAs} hears whom a revoked or expired token acted for (with no grants), before the 401. */
    private Principal principalOf(String token, Consumer<Principal> refusedAs) {
        String hash = TokenStore.hash(token);
        long now = System.nanoTime();
        Cached c = cache.get(hash);
        if (c == null || now - c.cachedAtNanos() - ttlNanos >= 0) {
            c = load(token, hash, now, refusedAs);
        }
        if (c.expiresAt() != null && !clock.now().isBefore(c.expiresAt())) {
            refusedAs.accept(new Principal(c.principal().name(), c.principal().via(), Grants.of(Role.PUBLIC)));
            throw ApiException.unauthorized("token '" + tokenName(c.principal()) + "' expired at " + c.expiresAt()
                    + "; ask an admin for a new one");
        }
        if (now - c.touchedAtNanos() - TOUCH_EVERY.toNanos() >= 0) {
            long id = c.tokenId();
            store.tx(tx -> {
                store.tokens().touch(tx, id, TOUCH_EVERY.toMillis());
                return null;
            });
            cache.put(hash, new Cached(c.principal(), c.tokenId(), c.expiresAt(), c.cachedAtNanos(), now));
        }
        return c.principal();
    }

    private Cached load(String token, String hash, long now, Consumer<Principal> refusedAs) {
        Optional<TokenRow> row = store.tx(tx -> store.tokens().find(tx, token));
        if (row.isEmpty()) {
            cache.remove(hash);
            Optional<TokenStore.RevokedRow> revoked =
                    store.tx(tx -> store.tokens().revoked(tx, token));
            revoked.ifPresent(
                    r -> refusedAs.accept(new Principal(r.owner(), "token:" + r.name(), Grants.of(Role.PUBLIC))));
            throw ApiException.unauthorized(revoked.map(
                            r -> "token '" + r.name() + "' was revoked at " + r.revokedAt() + " by " + r.revokedBy())
                    .orElse("unknown token"));
        }
        TokenRow t = row.get();
        Principal p = new Principal(t.owner(), "token:" + t.name(), t.grants());
        Cached previous = cache.get(hash);
        // A token seen for the first time (on this node) is noted as used at once; then at most once per TOUCH_EVERY.
        long touched = previous == null ? now - TOUCH_EVERY.toNanos() : previous.touchedAtNanos();
        Cached c = new Cached(p, t.id(), t.expiresAt(), now, touched);
        cache.put(hash, c);
        return c;
    }

    /** Drops every cached lookup of the token named {@code name}: its next use is looked up (and refused) at once. */
    public void forget(String name) {
        cache.values().removeIf(c -> c.principal().via().equals("token:" + name));
    }

    /**
     * The route's role, held everywhere or, where a team grant could decide, in every team that owns the target. A
     * target that does not exist passes: the handler answers 404 (everyone may list every task, so nothing is told).
     */
    private void authorize(Context ctx, Route route, Principal p, ApiContext api) {
        Role needed = route.role();
        Grants g = p.grants();
        if (needed == Role.PUBLIC || g.allows(needed, null)) {
            return;
        }
        Optional<List<String>> owners = g.mayDependOnTeam(needed) ? owners(ctx, route, api) : Optional.empty();
        if (g.mayDependOnTeam(needed) && (owners.isEmpty() || g.allowsAll(needed, owners.get()))) {
            return;
        }
        throw ApiException.forbidden(
                refusal(p, needed, route, owners.isPresent() ? owners.get() : ownersForMessage(ctx, route, api)));
    }

    /** The teams owning the request's target, found once per request (the audit records them too). */
    static Optional<List<String>> owners(Context ctx, Route route, ApiContext api) {
        Optional<List<String>> cached = ctx.attribute(OWNERS);
        if (cached == null) {
            cached = route.scope().owners(ctx, api);
            ctx.attribute(OWNERS, cached);
        }
        return cached;
    }

    private static List<String> ownersForMessage(Context ctx, Route route, ApiContext api) {
        return route.scope() == Scope.GLOBAL
                ? List.of()
                : owners(ctx, route, api).orElse(List.of());
    }

    /** "alice (viewer; operator in data) may not pause a task: that needs operator in team finance, or operator everywhere". */
    private static String refusal(Principal p, Role needed, Route route, List<String> owners) {
        List<String> teams = owners.stream()
                .filter(t -> t != null && !needed.admits(p.roleIn(t)))
                .distinct()
                .toList();
        boolean teamless = owners.stream().anyMatch(Objects::isNull);
        String what = route.summary().isEmpty()
                ? "do this"
                : Character.toLowerCase(route.summary().charAt(0))
                        + route.summary().substring(1);
        String needs;
        if (needed == Role.EXECUTOR) {
            needs = "an executor's token (or admin)";
        } else if (teamless || teams.isEmpty()) {
            needs = needed.wireName() + " everywhere" + (teamless ? " (what it acts on belongs to no team)" : "");
        } else {
            needs = needed.wireName() + " in team " + String.join(" and ", teams) + ", or " + needed.wireName()
                    + " everywhere";
        }
        return p.name() + " (" + p.grants().describe() + ") may not " + what + ": that needs " + needs;
    }

    /** The caller of the current request (anonymous before authentication). */
    public static Principal principal(Context ctx) {
        Principal p = ctx.attribute(PRINCIPAL);
        return p == null ? Principal.ANONYMOUS : p;
    }

    /** The actor to record for the current request. */
    public static String actor(Context ctx) {
        return principal(ctx).name();
    }

    private static String tokenName(Principal p) {
        return p.via().startsWith("token:") ? p.via().substring("token:".length()) : p.name();
    }

    private static Optional<String> bearer(String header) {
        if (header == null
                || header.length() <= BEARER.length()
                || !header.regionMatches(true, 0, BEARER, 0, BEARER.length())) {
            return Optional.empty();
        }
        String token = header.substring(BEARER.length()).strip();
        return token.isEmpty() ? Optional.empty() : Optional.of(token);
    }
}
