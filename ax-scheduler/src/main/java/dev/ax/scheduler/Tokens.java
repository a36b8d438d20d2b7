package dev.ax.scheduler;

import dev.ax.domain.access.TokenRequest;
import dev.ax.store.Store;
import dev.ax.store.StoreException;
import dev.ax.store.TokenStore.TokenRow;
import java.security.SecureRandom;
import java.time.Instant;
import java.util.Base64;
import java.util.List;

/**
 * Tokens for people and machines: made by an admin and shown once, listed without their values, revoked at once. A
 * token's team grants must name teams that exist.
 */
public final class Tokens {
    /** Every token AX makes starts with this, so that a leaked one is recognised by secret scanners and people. */
    public static final String PREFIX = "axt_";

    private static final int TOKEN_BYTES = 32;
    private static final SecureRandom RANDOM = new SecureRandom();

    private final Store store;

    Tokens(Store store) {
        this.store = store;
    }

    /** A token just made: its row, and the token itself, which is never shown again. */
    public record Made(TokenRow row, String token) {}

    public Made create(Object json, String actor) {
        TokenRequest request = TokenRequest.parse(json);
        String token = newToken();
        try {
            TokenRow row = store.tx(tx -> {
                for (String team : request.grants().teams().keySet()) {
                    Teams.requireExists(tx, store, team, "teams." + team);
                }
                Instant expires = request.expiresIn() == null ? null : tx.now().plus(request.expiresIn());
                if (!store.tokens()
                        .create(tx, request.name(), request.owner(), token, request.grants(), expires, actor)) {
                    throw taken(request.name());
                }
                return store.tokens().byName(tx, request.name()).orElseThrow();
            });
            return new Made(row, token);
        } catch (StoreException e) {
            // Two creates of one name at once: the unique index refused the second.
            if (store.tx(tx -> store.tokens().byName(tx, request.name())).isPresent()) {
                throw taken(request.name());
            }
            throw e;
        }
    }

    /** Every token; with {@code owner}, only that person's. */
    public List<TokenRow> list(String owner) {
        return store.tx(tx -> store.tokens().list(tx, owner));
    }

    public TokenRow get(String name) {
        return store.tx(tx -> store.tokens().byName(tx, name))
                .orElseThrow(() -> new NotFoundException("no token " + name));
    }

    /**
     * Revokes a token: the next request carrying it is refused, on this node at once and on the others within
     * their lookup cache's lifetime. The console sessions it opened end with it (their cookie holds the token).
     */
    public TokenRow revoke(String name, String actor) {
        return store.tx(tx -> store.tokens().revoke(tx, name, actor))
                .orElseThrow(() -> new NotFoundException("no token " + name));
    }

    static String newToken() {
        byte[] bytes = new byte[TOKEN_BYTES];
        RANDOM.nextBytes(bytes);
        return PREFIX + Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    private static ConflictException taken(String name) {
        return new ConflictException("a token named " + name + " exists; revoke it first or choose another name");
    }
}
