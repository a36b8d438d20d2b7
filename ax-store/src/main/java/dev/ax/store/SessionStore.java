package dev.ax.store;

import java.time.Instant;
import java.util.Optional;

/**
 * Console sessions of people who signed in with single sign-on, and sign-ins under way (V38). Only a hash of a
 * session's id is stored; the cookie holds the id.
 */
public final class SessionStore {
    /** A live session: the person and the grants their identity provider's claims gave them, as JSON. */
    public record SessionRow(String person, String grants, Instant createdAt, Instant expiresAt) {}

    /** A sign-in sent to the identity provider and not yet back. */
    public record PendingLogin(String verifier, String nonce, String nextPath, Instant createdAt) {}

    public void create(Tx tx, String id, String person, String grantsJson, long lifetimeMillis) {
        tx.update(
                "INSERT INTO ax_console_session (id_hash, person, grants, created_at, expires_at) VALUES (?, ?, ?, CURRENT_TIMESTAMP, "
                        + tx.dialect().plusMillis("CURRENT_TIMESTAMP") + ")",
                TokenStore.hash(id),
                person,
                grantsJson,
                lifetimeMillis);
    }

    /** The session of {@code id}, unless it has expired. */
    public Optional<SessionRow> find(Tx tx, String id) {
        return tx.queryOne(
                "SELECT person, grants, created_at, expires_at FROM ax_console_session WHERE id_hash = ?"
                        + " AND expires_at > CURRENT_TIMESTAMP",
                r -> new SessionRow(r.str("person"), r.str("grants"), r.instant("created_at"), r.instant("expires_at")),
                TokenStore.hash(id));
    }

    public void delete(Tx tx, String id) {
        tx.update("DELETE FROM ax_console_session WHERE id_hash = ?", TokenStore.hash(id));
    }

    /** Ends every session of a person (their access was taken away). */
    public int deleteOf(Tx tx, String person) {
        return tx.update("DELETE FROM ax_console_session WHERE person = ?", person);
    }

    public void begin(Tx tx, String state, String verifier, String nonce, String nextPath) {
        tx.update(
                "INSERT INTO ax_sso_login (state, verifier, nonce, next_path, created_at) VALUES (?, ?, ?, ?, CURRENT_TIMESTAMP)",
                state,
                verifier,
                nonce,
                nextPath);
    }

    /** Takes the sign-in of {@code state} (once: it is deleted), if it began less than {@code maxAgeMillis} ago. */
    public Optional<PendingLogin> take(Tx tx, String state, long maxAgeMillis) {
        Optional<PendingLogin> p = tx.queryOne(
                "SELECT verifier, nonce, next_path, created_at FROM ax_sso_login WHERE state = ?" + " AND created_at > "
                        + tx.dialect().plusMillis("CURRENT_TIMESTAMP") + " FOR UPDATE",
                r -> new PendingLogin(r.str("verifier"), r.str("nonce"), r.str("next_path"), r.instant("created_at")),
                state,
                -maxAgeMillis);
        tx.update("DELETE FROM ax_sso_login WHERE state = ?", state);
        return p;
    }

    /** Deletes expired sessions and sign-ins older than {@code maxAgeMillis}; returns how many rows went. */
    public int expire(Tx tx, long maxAgeMillis) {
        return tx.update("DELETE FROM ax_console_session WHERE expires_at <= CURRENT_TIMESTAMP")
                + tx.update(
                        "DELETE FROM ax_sso_login WHERE created_at <= "
                                + tx.dialect().plusMillis("CURRENT_TIMESTAMP"),
                        -maxAgeMillis);
    }
}
