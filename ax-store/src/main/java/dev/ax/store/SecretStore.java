package dev.ax.store;

import dev.ax.domain.task.TaskDefinition;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Optional;

/**
 * Secrets as the server seals them (V37): per name a ciphertext, its nonce and the id of the key that sealed it,
 * never a value. Every change locks the one generation row first ({@link #lockGeneration}) and bumps it, so changes
 * are serialised across nodes and each node sees with one read that it has new values to mask.
 */
public final class SecretStore {
    private static final String COLUMNS =
            "name, ciphertext, nonce, key_id, created_at, created_by, updated_at, updated_by";

    /** What the cipher made of a value: the store keeps it as it is. */
    public record Sealed(byte[] ciphertext, byte[] nonce, String keyId) {}

    /** A stored secret: its seal and who set it when. */
    public record SecretRow(
            String name, Sealed sealed, Instant createdAt, String createdBy, Instant updatedAt, String updatedBy) {
        public String keyId() {
            return sealed.keyId();
        }
    }

    /** A definition that may use secrets: a task's current version, or its canary's. */
    public record TaskUsing(String taskName, TaskDefinition definition) {}

    /** Locks the generation row until the transaction ends, and returns it: every change of secrets takes this first. */
    public long lockGeneration(Tx tx) {
        return tx.queryOne(
                        "SELECT generation FROM ax_secret_generation WHERE id = 1 FOR UPDATE", r -> r.lng("generation"))
                .orElseThrow(() -> new StoreException("ax_secret_generation has no row (V37 inserts it)"));
    }

    /** The generation now: it changes with every change of a secret. */
    public long generation(Tx tx) {
        return tx.queryOne("SELECT generation FROM ax_secret_generation WHERE id = 1", r -> r.lng("generation"))
                .orElse(0L);
    }

    /** Marks a change, in its transaction (after {@link #lockGeneration}). */
    public void bumpGeneration(Tx tx) {
        expectOne(tx.update("UPDATE ax_secret_generation SET generation = generation + 1 WHERE id = 1"), "generation");
    }

    public Optional<SecretRow> find(Tx tx, String name) {
        return tx.queryOne("SELECT " + COLUMNS + " FROM ax_secret WHERE name = ?", SecretStore::map, name);
    }

    /** The rows of those of {@code names} that exist. */
    public List<SecretRow> find(Tx tx, Collection<String> names) {
        if (names.isEmpty()) {
            return List.of();
        }
        return tx.query(
                "SELECT " + COLUMNS + " FROM ax_secret WHERE name IN (" + marks(names.size()) + ")",
                SecretStore::map,
                names.toArray());
    }

    /**
     * The names of those of {@code names} that exist, kept from being deleted until the transaction ends: a task saved
     * with them and a delete of one of them never both commit.
     */
    public List<String> holdNames(Tx tx, Collection<String> names) {
        if (names.isEmpty()) {
            return List.of();
        }
        return tx.query(
                "SELECT name FROM ax_secret WHERE name IN (" + marks(names.size()) + ") ORDER BY name"
                        + tx.dialect().forKeyShare(),
                r -> r.str("name"),
                names.toArray());
    }

    /** Every secret, by name. */
    public List<SecretRow> all(Tx tx) {
        return tx.query("SELECT " + COLUMNS + " FROM ax_secret ORDER BY name", SecretStore::map);
    }

    /** Adds a secret; false when the name is taken. */
    public boolean insert(Tx tx, String name, Sealed sealed, String actor) {
        return tx.update(
                        "INSERT INTO ax_secret (" + COLUMNS
                                + ") SELECT ?, ?, ?, ?, CURRENT_TIMESTAMP, ?, CURRENT_TIMESTAMP, ?"
                                + " FROM ax_secret_generation WHERE id = 1 AND NOT EXISTS (SELECT 1 FROM ax_secret WHERE name = ?)",
                        name,
                        sealed.ciphertext(),
                        sealed.nonce(),
                        sealed.keyId(),
                        actor,
                        actor,
                        name)
                == 1;
    }

    /** Replaces a secret's value; false when there is no such secret. */
    public boolean update(Tx tx, String name, Sealed sealed, String actor) {
        return tx.update(
                        "UPDATE ax_secret SET ciphertext = ?, nonce = ?, key_id = ?, updated_at = CURRENT_TIMESTAMP, updated_by = ?"
                                + " WHERE name = ?",
                        sealed.ciphertext(),
                        sealed.nonce(),
                        sealed.keyId(),
                        actor,
                        name)
                == 1;
    }

    /**
     * The same value sealed again under another key (a key rotation); false when the row is no longer sealed with
     * {@code fromKeyId} (another node did it). Who set the value and when stay as they were.
     */
    public boolean reseal(Tx tx, String name, String fromKeyId, Sealed sealed) {
        return tx.update(
                        "UPDATE ax_secret SET ciphertext = ?, nonce = ?, key_id = ? WHERE name = ? AND key_id = ?",
                        sealed.ciphertext(),
                        sealed.nonce(),
                        sealed.keyId(),
                        name,
                        fromKeyId)
                == 1;
    }

    /** Deletes a secret; false when there is none of that name. */
    public boolean delete(Tx tx, String name) {
        return tx.update("DELETE FROM ax_secret WHERE name = ?", name) == 1;
    }

    /**
     * Every definition that may refer to a secret: the current version of each task and the version its active canary
     * rolls out, of those whose text mentions "secret." (the caller reads the references from the definitions).
     */
    public List<TaskUsing> definitionsMentioningSecrets(Tx tx) {
        List<TaskUsing> out = new ArrayList<>(tx.query(
                "SELECT name, definition FROM ax_task WHERE definition LIKE '%secret.%'",
                r -> new TaskUsing(r.str("name"), TaskStore.parse(r.str("definition")))));
        out.addAll(tx.query(
                "SELECT c.task_name, v.definition FROM ax_canary c JOIN ax_task_version v"
                        + " ON v.task_id = c.task_id AND v.version = c.canary_version WHERE c.state = 'ACTIVE' AND v.definition LIKE '%secret.%'",
                r -> new TaskUsing(r.str("task_name"), TaskStore.parse(r.str("definition")))));
        return out;
    }

    private static String marks(int n) {
        return String.join(", ", Collections.nCopies(n, "?"));
    }

    private static void expectOne(int rows, String what) {
        if (rows != 1) {
            throw new StoreException("expected to change one " + what + " row, changed " + rows);
        }
    }

    private static SecretRow map(Tx.Row r) throws SQLException {
        return new SecretRow(
                r.str("name"),
                new Sealed(r.bytes("ciphertext"), r.bytes("nonce"), r.str("key_id")),
                r.instant("created_at"),
                r.str("created_by"),
                r.instant("updated_at"),
                r.str("updated_by"));
    }
}
