package dev.ax.store;

import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;

/**
 * Idempotency keys of triggers ({@code ax_trigger_key}, V36): which run a caller's key made, so that
 * the same request sent again is answered with that run instead of making another. The primary key
 * (task, key) decides, in the transaction that creates the run: {@link #claim} writes the key before
 * the run, and a second transaction claiming the same key waits for the first to end, then finds its
 * row. Never a read before a write.
 */
public final class TriggerKeyStore {
    /**
     * The trigger that holds a key within its window.
     *
     * @param requestHash what that request was ({@code body_hash}), to tell a repeat from another request
     * @param instanceId  the run it made
     */
    public record Earlier(String requestHash, long instanceId, Instant createdAt) {}

    /**
     * Takes {@code key} of task {@code taskId} for a run this transaction is about to create: inserts
     * its row, or takes over a row older than {@code window}. Empty when taken (the caller creates the
     * run, then {@link #bind}s it); otherwise the trigger that holds the key, its row locked until this
     * transaction ends. Called with the task's row locked (the lock order: task, then key).
     */
    public Optional<Earlier> claim(Tx tx, long taskId, String key, String requestHash, Duration window) {
        return switch (tx.dialect().upsert()) {
            case ON_CONFLICT -> claimByUpsert(tx, taskId, key, requestHash, window);
            case ON_DUPLICATE_KEY -> claimOnDuplicateKey(tx, taskId, key, requestHash, window);
            case NONE -> claimUnderLock(tx, taskId, key, requestHash, window);
        };
    }

    /**
     * PostgreSQL: one statement. A concurrent transaction that inserted the same key makes it wait
     * until that one ends; then the row is there (nothing inserted, nothing updated unless it is
     * expired) or gone (inserted). {@code DO UPDATE ... WHERE} locks the row it leaves as well, so
     * housekeeping cannot delete it before it is read.
     */
    private Optional<Earlier> claimByUpsert(Tx tx, long taskId, String key, String requestHash, Duration window) {
        int taken = tx.update(
                "INSERT INTO ax_trigger_key (task_id, idem_key, body_hash, instance_id, created_at)"
                        + " VALUES (?, ?, ?, NULL, CURRENT_TIMESTAMP) ON CONFLICT (task_id, idem_key) DO UPDATE"
                        + " SET body_hash = EXCLUDED.body_hash, instance_id = NULL, created_at = EXCLUDED.created_at"
                        + " WHERE ax_trigger_key.created_at <= " + tx.dialect().plusMillis("CURRENT_TIMESTAMP"),
                taskId,
                key,
                requestHash,
                -window.toMillis());
        if (taken == 1) {
            return Optional.empty();
        }
        return Optional.of(read(tx, taskId, key)
                .orElseThrow(
                        () -> new IllegalStateException("trigger key of task " + taskId + " neither taken nor found")));
    }

    /**
     * MariaDB and MySQL: one statement that inserts the key, or takes over its row if it is expired, or
     * leaves it; a concurrent transaction that inserted the same key makes it wait until that one ends,
     * and it locks the row it leaves, like PostgreSQL's upsert. The row then says which: a row this
     * transaction wrote has no run yet ({@link #bind} comes next), a row held by another has its run.
     * (Inserting, then reading the taken row {@code FOR UPDATE}, deadlocked: two transactions that both
     * failed the insert held a shared lock on the row, and each waited for the other's to update it.)
     * {@code created_at} is set last: {@code ON DUPLICATE KEY UPDATE} assigns in order, and the other
     * columns' condition reads the old value.
     */
    private Optional<Earlier> claimOnDuplicateKey(Tx tx, long taskId, String key, String requestHash, Duration window) {
        String expired = "created_at <= " + tx.dialect().plusMillis("CURRENT_TIMESTAMP");
        tx.update(
                "INSERT INTO ax_trigger_key (task_id, idem_key, body_hash, instance_id, created_at)"
                        + " VALUES (?, ?, ?, NULL, CURRENT_TIMESTAMP) ON DUPLICATE KEY UPDATE"
                        + " body_hash = IF(" + expired + ", ?, body_hash),"
                        + " instance_id = IF(" + expired + ", NULL, instance_id),"
                        + " created_at = IF(" + expired + ", CURRENT_TIMESTAMP, created_at)",
                taskId,
                key,
                requestHash,
                -window.toMillis(),
                requestHash,
                -window.toMillis(),
                -window.toMillis());
        boolean taken = tx.queryOne(
                        "SELECT instance_id FROM ax_trigger_key WHERE task_id = ? AND idem_key = ?",
                        r -> r.nullableLong("instance_id") == null,
                        taskId,
                        key)
                .orElseThrow(
                        () -> new IllegalStateException("trigger key of task " + taskId + " neither taken nor found"));
        return taken ? Optional.empty() : read(tx, taskId, key);
    }

    /**
     * H2 (single node): the row read {@code FOR UPDATE}, then inserted or taken over. Two triggers of
     * one task never get here at once, as H2 has no shared row lock and every trigger locks its task
     * row for update first; were they to, the primary key would fail the second insert (and its
     * transaction), never let it make a second run.
     */
    private Optional<Earlier> claimUnderLock(Tx tx, long taskId, String key, String requestHash, Duration window) {
        record Held(Earlier earlier, boolean expired) {}
        Optional<Held> held = tx.queryOne(
                "SELECT body_hash, instance_id, created_at, created_at <= "
                        + tx.dialect().plusMillis("CURRENT_TIMESTAMP") + " AS expired FROM ax_trigger_key"
                        + " WHERE task_id = ? AND idem_key = ? FOR UPDATE",
                r -> new Held(earlier(r), r.bool("expired")),
                -window.toMillis(),
                taskId,
                key);
        if (held.isEmpty()) {
            tx.update(
                    "INSERT INTO ax_trigger_key (task_id, idem_key, body_hash, instance_id, created_at)"
                            + " VALUES (?, ?, ?, NULL, CURRENT_TIMESTAMP)",
                    taskId,
                    key,
                    requestHash);
            return Optional.empty();
        }
        if (held.get().expired()) {
            tx.update(
                    "UPDATE ax_trigger_key SET body_hash = ?, instance_id = NULL, created_at = CURRENT_TIMESTAMP"
                            + " WHERE task_id = ? AND idem_key = ?",
                    requestHash,
                    taskId,
                    key);
            return Optional.empty();
        }
        return Optional.of(held.get().earlier());
    }

    /** Records the run a {@link #claim}ed key made, in the claim's transaction. */
    public void bind(Tx tx, long taskId, String key, long instanceId) {
        int n = tx.update(
                "UPDATE ax_trigger_key SET instance_id = ? WHERE task_id = ? AND idem_key = ? AND instance_id IS NULL",
                instanceId,
                taskId,
                key);
        if (n != 1) {
            throw new IllegalStateException(
                    "trigger key of task " + taskId + " was not claimed by this transaction (" + n + " rows)");
        }
    }

    /** The trigger holding a key, whatever its age (for tests and diagnostics). */
    public Optional<Earlier> find(Tx tx, long taskId, String key) {
        return read(tx, taskId, key);
    }

    /**
     * Deletes up to {@code limit} keys older than {@code window}, oldest first; returns how many. Rows a
     * trigger holds are skipped on PostgreSQL and MariaDB (it is taking them over), and the batch is the
     * caller's transaction: a trigger never waits for more than one batch's delete.
     */
    public int deleteExpired(Tx tx, Duration window, int limit) {
        String expired = "created_at <= " + tx.dialect().plusMillis("CURRENT_TIMESTAMP");
        if (!tx.dialect().limitsInSubqueries()) {
            List<Object> keys = new ArrayList<>();
            tx.query(
                    "SELECT task_id, idem_key FROM ax_trigger_key WHERE " + expired + " ORDER BY created_at LIMIT ?"
                            + tx.dialect().forUpdateSkipLocked(),
                    r -> keys.addAll(List.of(r.lng("task_id"), r.str("idem_key"))),
                    -window.toMillis(),
                    limit);
            return keys.isEmpty()
                    ? 0
                    : tx.update(
                            "DELETE FROM ax_trigger_key WHERE (task_id, idem_key) IN ("
                                    + String.join(", ", Collections.nCopies(keys.size() / 2, "(?, ?)")) + ")",
                            keys.toArray());
        }
        return tx.update(
                "DELETE FROM ax_trigger_key WHERE " + expired + " AND (task_id, idem_key) IN"
                        + " (SELECT task_id, idem_key FROM ax_trigger_key WHERE " + expired
                        + " ORDER BY created_at LIMIT ?"
                        + tx.dialect().forUpdateSkipLocked() + ")",
                -window.toMillis(),
                -window.toMillis(),
                limit);
    }

    /** How many keys are kept (for tests and diagnostics). */
    public long count(Tx tx) {
        return tx.queryOne("SELECT COUNT(*) AS n FROM ax_trigger_key", r -> r.lng("n"))
                .orElse(0L);
    }

    private static Optional<Earlier> read(Tx tx, long taskId, String key) {
        return tx.queryOne(
                "SELECT body_hash, instance_id, created_at FROM ax_trigger_key WHERE task_id = ? AND idem_key = ?",
                TriggerKeyStore::earlier,
                taskId,
                key);
    }

    private static Earlier earlier(Tx.Row r) throws SQLException {
        Long instance = r.nullableLong("instance_id");
        if (instance == null) {
            // Claimed and bound in one transaction: another transaction never sees the row without its run.
            throw new IllegalStateException("a trigger key without its run");
        }
        return new Earlier(r.str("body_hash"), instance, r.instant("created_at"));
    }
}
