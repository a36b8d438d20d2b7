package dev.ax.store;

import dev.ax.domain.run.BackfillState;
import dev.ax.domain.run.RunState;
import java.sql.SQLException;
import java.time.Instant;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Backfill requests and the runs they created (ax_instance.backfill_id). */
public final class BackfillStore {
    public record BackfillRow(
            long id,
            long taskId,
            String taskName,
            Instant from,
            Instant to,
            int parallelism,
            String reprocess,
            boolean newestFirst,
            Map<String, Object> params,
            BackfillState state,
            int total,
            int nextIndex,
            String createdBy,
            Instant createdAt) {}

    private static final String COLUMNS =
            "id, task_id, task_name, range_from, range_to, parallelism, reprocess, newest_first, params,"
                    + " state, total, next_index, created_by, created_at";

    public long insert(
            Tx tx,
            long taskId,
            String taskName,
            Instant from,
            Instant to,
            int parallelism,
            String reprocess,
            boolean newestFirst,
            Map<String, Object> params,
            int total,
            String actor) {
        return tx.insert(
                        "INSERT INTO ax_backfill (task_id, task_name, range_from, range_to, parallelism, reprocess, newest_first, params,"
                                + " state, total, next_index, created_by, created_at, updated_at)"
                                + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'RUNNING', ?, 0, ?, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)",
                        taskId,
                        taskName,
                        from,
                        to,
                        parallelism,
                        reprocess,
                        newestFirst,
                        params.isEmpty() ? null : Json.write(params),
                        total,
                        actor)
                .orElseThrow();
    }

    public Optional<BackfillRow> find(Tx tx, long id) {
        return tx.queryOne("SELECT " + COLUMNS + " FROM ax_backfill WHERE id = ?", BackfillStore::map, id);
    }

    public Optional<BackfillRow> lock(Tx tx, long id) {
        return tx.queryOne("SELECT " + COLUMNS + " FROM ax_backfill WHERE id = ? FOR UPDATE", BackfillStore::map, id);
    }

    public List<Long> running(Tx tx, int limit) {
        return tx.query(
                "SELECT id FROM ax_backfill WHERE state = 'RUNNING' ORDER BY id LIMIT ?", r -> r.lng("id"), limit);
    }

    public List<BackfillRow> ofTask(Tx tx, long taskId, int limit) {
        return tx.query(
                "SELECT " + COLUMNS + " FROM ax_backfill WHERE task_id = ? ORDER BY id DESC LIMIT ?",
                BackfillStore::map,
                taskId,
                limit);
    }

    public void advance(Tx tx, long id, int nextIndex) {
        tx.update("UPDATE ax_backfill SET next_index = ?, updated_at = CURRENT_TIMESTAMP WHERE id = ?", nextIndex, id);
    }

    public boolean setState(Tx tx, long id, BackfillState from, BackfillState to) {
        BackfillState.MACHINE.check(from, to);
        return tx.update(
                        "UPDATE ax_backfill SET state = ?, updated_at = CURRENT_TIMESTAMP WHERE id = ? AND state = ?",
                        to,
                        id,
                        from)
                == 1;
    }

    public void tag(Tx tx, long instanceId, long backfillId) {
        tx.update("UPDATE ax_instance SET backfill_id = ? WHERE id = ?", backfillId, instanceId);
    }

    /** Runs of a backfill that have not started (READY, BLOCKED, WAITING_APPROVAL). */
    public List<RunRow> waitingRuns(Tx tx, long id) {
        return tx.query(
                "SELECT " + RunStore.COLUMNS + " FROM ax_instance WHERE backfill_id = ?"
                        + " AND state IN ('READY', 'BLOCKED', 'WAITING_APPROVAL', 'WAITING_DEPENDENCY') ORDER BY id",
                RunStore::map,
                id);
    }

    /** Runs of a backfill by state. */
    public Map<RunState, Integer> progress(Tx tx, long id) {
        Map<RunState, Integer> counts = new EnumMap<>(RunState.class);
        tx.query(
                "SELECT state, COUNT(*) AS n FROM ax_instance WHERE backfill_id = ? GROUP BY state",
                r -> {
                    counts.put(r.enumOf(RunState.class, "state"), r.integer("n"));
                    return null;
                },
                id);
        return counts;
    }

    private static BackfillRow map(Tx.Row r) throws SQLException {
        String params = r.str("params");
        return new BackfillRow(
                r.lng("id"),
                r.lng("task_id"),
                r.str("task_name"),
                r.instant("range_from"),
                r.instant("range_to"),
                r.integer("parallelism"),
                r.str("reprocess"),
                r.bool("newest_first"),
                params == null ? Map.of() : Json.readMap(params),
                r.enumOf(BackfillState.class, "state"),
                r.integer("total"),
                r.integer("next_index"),
                r.str("created_by"),
                r.instant("created_at"));
    }
}
