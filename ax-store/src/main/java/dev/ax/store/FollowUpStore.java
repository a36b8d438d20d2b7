package dev.ax.store;

import dev.ax.domain.run.FollowUpState;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/** The follow-up outbox: written with the failure, worked off by the housekeeping loop. */
public final class FollowUpStore {
    public record FollowUpRow(
            long id,
            long instanceId,
            long taskId,
            int position,
            Map<String, Object> action,
            FollowUpState state,
            int attempts,
            Instant nextAt,
            String lastError) {}

    private static final String COLUMNS =
            "id, instance_id, task_id, position, action, state, attempts, next_at, last_error";

    public void enqueue(Tx tx, long instanceId, long taskId, int position, Map<String, Object> action) {
        tx.update(
                "INSERT INTO ax_follow_up (instance_id, task_id, position, action, state, attempts, next_at, created_at)"
                        + " VALUES (?, ?, ?, ?, 'PENDING', 0, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)",
                instanceId,
                taskId,
                position,
                Json.write(action));
    }

    /** Due follow-ups, locked for this transaction; other nodes skip them. */
    public List<FollowUpRow> lockDue(Tx tx, int limit) {
        return tx.query(
                "SELECT " + COLUMNS + " FROM ax_follow_up WHERE state = 'PENDING' AND next_at <= CURRENT_TIMESTAMP"
                        + " ORDER BY next_at, id LIMIT ?" + tx.dialect().forUpdateSkipLocked(),
                FollowUpStore::map,
                limit);
    }

    /** Puts a follow-up off for {@code millis} and counts the attempt (a lease for work done outside the transaction). */
    public void postpone(Tx tx, long id, long millis, String error) {
        tx.update(
                "UPDATE ax_follow_up SET attempts = attempts + 1, last_error = ?, next_at = "
                        + tx.dialect().plusMillis("CURRENT_TIMESTAMP") + " WHERE id = ? AND state = 'PENDING'",
                error,
                millis,
                id);
    }

    public boolean finish(Tx tx, long id, FollowUpState state, String error) {
        FollowUpState.MACHINE.check(FollowUpState.PENDING, state);
        return tx.update(
                        "UPDATE ax_follow_up SET state = ?, last_error = ?, done_at = CURRENT_TIMESTAMP WHERE id = ? AND state = 'PENDING'",
                        state,
                        error,
                        id)
                == 1;
    }

    public List<FollowUpRow> forRun(Tx tx, long instanceId) {
        return tx.query(
                "SELECT " + COLUMNS + " FROM ax_follow_up WHERE instance_id = ? ORDER BY position",
                FollowUpStore::map,
                instanceId);
    }

    private static FollowUpRow map(Tx.Row r) throws SQLException {
        return new FollowUpRow(
                r.lng("id"),
                r.lng("instance_id"),
                r.lng("task_id"),
                r.integer("position"),
                Json.readMap(r.str("action")),
                r.enumOf(FollowUpState.class, "state"),
                r.integer("attempts"),
                r.instant("next_at"),
                r.str("last_error"));
    }
}
