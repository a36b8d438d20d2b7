package dev.ax.api;

import dev.ax.store.Store;
import dev.ax.store.TokenStore;
import io.javalin.http.Context;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Bearer tokens: {@code Authorization: Bearer <token>} → the token's name (the actor recorded on
 * changes) and role. Lookups are cached by hash for {@link #DEFAULT_CACHE_TTL}, because executors
 * heartbeat and poll constantly; a revoked token therefore keeps working for at most that long.
 * Unknown tokens are not cached, so a token added a moment ago works at once.
 */
public final class Auth {
    public static final Duration DEFAULT_CACHE_TTL = Duration.ofSeconds(10);
    private static final String PRINCIPAL = "ax.principal";
    private static final String BEARER = "bearer ";

    /** Who is calling: {@code name} is recorded as the actor of what they change. */
    public record Principal(String name, Role role) {
        static final Principal ANONYMOUS = new Principal("anonymous", Role.PUBLIC);
    }

    private record Cached(Principal principal, long expiresAtNanos) {
    }

    private final Store store;
    private final long ttlNanos;
    private final ConcurrentHashMap<String, Cached> cache = new ConcurrentHashMap<>();

    public Auth(Store store, Duration ttl) {
        this.store = store;
        this.ttlNanos = ttl.toNanos();
    }

    /** Checks the caller may use a route requiring {@code required}; remembers who it is on the context. */
    public void require(Context ctx, Role required) {
        if (required == Role.PUBLIC) {
            ctx.attribute(PRINCIPAL, Principal.ANONYMOUS);
            return;
        }
        String token = bearer(ctx.header("Authorization"))
                .orElseThrow(() -> ApiException.unauthorized("missing token: send 'Authorization: Bearer <token>'"));
        Principal p = lookup(token)
                .orElseThrow(() -> ApiException.unauthorized("unknown token"));
        if (!required.admits(p.role())) {
            throw ApiException.forbidden("token '" + p.name() + "' has role " + p.role().wireName() + "; this needs "
                    + required.wireName() + (required == Role.EXECUTOR ? " (or admin)" : " or above"));
        }
        ctx.attribute(PRINCIPAL, p);
    }

    /** The actor to record for the current request. */
    public static String actor(Context ctx) {
        Principal p = ctx.attribute(PRINCIPAL);
        return p == null ? Principal.ANONYMOUS.name() : p.name();
    }

    /** The role of the current request's token ({@code viewer}, {@code operator}, {@code admin}, …). */
    public static String role(Context ctx) {
        Principal p = ctx.attribute(PRINCIPAL);
        return p == null ? null : p.role().wireName();
    }

    private Optional<Principal> lookup(String token) {
        String hash = TokenStore.hash(token);
        long now = System.nanoTime();
        Cached c = cache.get(hash);
        if (c != null && now - c.expiresAtNanos() < 0) {
            return Optional.of(c.principal());
        }
        Optional<Principal> found = store.tx(tx -> store.tokens().find(tx, token))
                .map(row -> new Principal(row.name(), Role.ofToken(row.role()).orElse(Role.PUBLIC)));
        found.ifPresentOrElse(p -> cache.put(hash, new Cached(p, now + ttlNanos)), () -> cache.remove(hash));
        return found;
    }

    private static Optional<String> bearer(String header) {
        if (header == null || header.length() <= BEARER.length()
                || !header.regionMatches(true, 0, BEARER, 0, BEARER.length())) {
            return Optional.empty();
        }
        String token = header.substring(BEARER.length()).strip();
        return token.isEmpty() ? Optional.empty() : Optional.of(token);
    }
}
