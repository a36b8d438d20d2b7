package dev.ax.store;

import dev.ax.domain.access.Grants;
import dev.ax.domain.access.Role;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * API tokens (V1, V38). Only a SHA-256 of each token is stored; the token itself is shown once, when made. A revoked
 * token leaves the table for {@code ax_token_revoked}, which keeps its hash so that a request still carrying it is told
 * so. Names are unique: a name is what is revoked.
 */
public final class TokenStore {
    private static final String COLUMNS =
            "id, name, owner, role, team_roles, exec_groups, created_at, created_by, expires_at, last_used_at";

    /**
     * A token as stored: {@code owner} is the actor it acts for; {@code role} is null when the stored role is not one
     * AX knows (such a token admits nothing).
     */
    public record TokenRow(
            long id,
            String name,
            String owner,
            Role role,
            Map<String, Role> teams,
            List<String> groups,
            Instant createdAt,
            String createdBy,
            Instant expiresAt,
            Instant lastUsedAt) {
        public Grants grants() {
            return new Grants(role == null ? Role.PUBLIC : role, teams, groups);
        }

        public boolean expiredAt(Instant now) {
            return expiresAt != null && !now.isBefore(expiresAt);
        }
    }

    /** A token no longer valid: who revoked it, when. */
    public record RevokedRow(String name, String owner, Instant revokedAt, String revokedBy) {}

    /** Adds a token of one role everywhere, for every group, never expiring (the bootstrap admin token, tests). */
    public void add(Tx tx, String name, String token, String role, String actor) {
        tx.update(
                "INSERT INTO ax_token (name, owner, token_hash, role, created_at, created_by) VALUES (?, ?, ?, ?, CURRENT_TIMESTAMP, ?)",
                name,
                name,
                hash(token),
                role,
                actor);
    }

    /** Adds a token; false when its name is taken (nothing written). */
    public boolean create(
            Tx tx, String name, String owner, String token, Grants grants, Instant expiresAt, String actor) {
        return tx.update(
                        "INSERT INTO ax_token (name, owner, token_hash, role, team_roles, exec_groups, expires_at, created_at, created_by)"
                                + " SELECT ?, ?, ?, ?, ?, ?, ?, CURRENT_TIMESTAMP, ? WHERE NOT EXISTS"
                                + " (SELECT 1 FROM ax_token WHERE name = ?)",
                        name,
                        owner,
                        hash(token),
                        grants.role().wireName(),
                        teamsJson(grants.teams()),
                        grants.groups().isEmpty() ? null : Json.write(grants.groups()),
                        expiresAt,
                        actor,
                        name)
                == 1;
    }

    public Optional<TokenRow> find(Tx tx, String token) {
        return tx.queryOne("SELECT " + COLUMNS + " FROM ax_token WHERE token_hash = ?", TokenStore::map, hash(token));
    }

    public Optional<TokenRow> byName(Tx tx, String name) {
        return tx.queryOne("SELECT " + COLUMNS + " FROM ax_token WHERE name = ?", TokenStore::map, name);
    }

    /** Every token, by name; with {@code owner} set, only those acting for that person. */
    public List<TokenRow> list(Tx tx, String owner) {
        return owner == null
                ? tx.query("SELECT " + COLUMNS + " FROM ax_token ORDER BY name", TokenStore::map)
                : tx.query(
                        "SELECT " + COLUMNS + " FROM ax_token WHERE owner = ? ORDER BY name", TokenStore::map, owner);
    }

    /** The names of the tokens that grant a role in {@code team}. */
    public List<String> grantingIn(Tx tx, String team) {
        return tx
                .query(
                        "SELECT " + COLUMNS + " FROM ax_token WHERE team_roles IS NOT NULL ORDER BY name",
                        TokenStore::map)
                .stream()
                .filter(t -> t.teams().containsKey(team))
                .map(TokenRow::name)
                .toList();
    }

    /** Revokes a token: it leaves the table, its hash is kept to tell the next request why. Empty when there is none of that name. */
    public Optional<TokenRow> revoke(Tx tx, String name, String actor) {
        Optional<TokenRow> row = tx.queryOne(
                "SELECT " + COLUMNS + ", token_hash FROM ax_token WHERE name = ? FOR UPDATE", TokenStore::map, name);
        row.ifPresent(t -> {
            tx.update(
                    "INSERT INTO ax_token_revoked (token_hash, name, owner, revoked_at, revoked_by)"
                            + " SELECT token_hash, name, owner, CURRENT_TIMESTAMP, ? FROM ax_token WHERE id = ?",
                    actor,
                    t.id());
            tx.update("DELETE FROM ax_token WHERE id = ?", t.id());
        });
        return row;
    }

    /** What is known of a token that was revoked. */
    public Optional<RevokedRow> revoked(Tx tx, String token) {
        return tx.queryOne(
                "SELECT name, owner, revoked_at, revoked_by FROM ax_token_revoked WHERE token_hash = ?",
                r -> new RevokedRow(r.str("name"), r.str("owner"), r.instant("revoked_at"), r.str("revoked_by")),
                hash(token));
    }

    /** Notes that a token was used, at most once per {@code everyMillis}: the list says when each was last used. */
    public void touch(Tx tx, long id, long everyMillis) {
        tx.update(
                "UPDATE ax_token SET last_used_at = CURRENT_TIMESTAMP WHERE id = ? AND (last_used_at IS NULL OR last_used_at < "
                        + tx.dialect().plusMillis("CURRENT_TIMESTAMP") + ")",
                id,
                -everyMillis);
    }

    /** Gives the token of {@code name} a new value (the bootstrap admin token, when the configured one changed). */
    public boolean replace(Tx tx, String name, String token) {
        return tx.update("UPDATE ax_token SET token_hash = ? WHERE name = ?", hash(token), name) == 1;
    }

    public int count(Tx tx) {
        return tx.queryOne("SELECT COUNT(*) AS n FROM ax_token", r -> r.integer("n"))
                .orElse(0);
    }

    public static String hash(String token) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JDK", e);
        }
    }

    private static String teamsJson(Map<String, Role> teams) {
        if (teams.isEmpty()) {
            return null;
        }
        Map<String, String> m = new LinkedHashMap<>();
        teams.forEach((team, role) -> m.put(team, role.wireName()));
        return Json.canonical(m);
    }

    private static TokenRow map(Tx.Row r) throws SQLException {
        Map<String, Role> teams = new LinkedHashMap<>();
        Json.readMap(r.str("team_roles"))
                .forEach((team, role) -> Role.ofToken(String.valueOf(role)).ifPresent(v -> teams.put(team, v)));
        String groups = r.str("exec_groups");
        List<String> groupList = new ArrayList<>();
        if (groups != null) {
            for (Object g : Json.readList(groups)) {
                groupList.add(String.valueOf(g));
            }
        }
        return new TokenRow(
                r.lng("id"),
                r.str("name"),
                r.str("owner"),
                Role.ofToken(r.str("role")).orElse(null),
                teams,
                groupList,
                r.instant("created_at"),
                r.str("created_by"),
                r.instant("expires_at"),
                r.instant("last_used_at"));
    }
}
