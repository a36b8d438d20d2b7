package dev.ax.store;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.SQLException;
import java.util.HexFormat;
import java.util.Optional;

/** API tokens. Only a SHA-256 of each token is stored; the token itself is shown once, when made. */
public final class TokenStore {
    public record TokenRow(long id, String name, String role) {
    }

    public void add(Tx tx, String name, String token, String role, String actor) {
        tx.update("INSERT INTO ax_token (name, token_hash, role, created_at, created_by) VALUES (?, ?, ?, CURRENT_TIMESTAMP, ?)",
                name, hash(token), role, actor);
    }

    public Optional<TokenRow> find(Tx tx, String token) {
        return tx.queryOne("SELECT id, name, role FROM ax_token WHERE token_hash = ?", TokenStore::map, hash(token));
    }

    public int count(Tx tx) {
        return tx.queryOne("SELECT COUNT(*) AS n FROM ax_token", r -> r.integer("n")).orElse(0);
    }

    public static String hash(String token) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JDK", e);
        }
    }

    private static TokenRow map(Tx.Row r) throws SQLException {
        return new TokenRow(r.lng("id"), r.str("name"), r.str("role"));
    }
}
