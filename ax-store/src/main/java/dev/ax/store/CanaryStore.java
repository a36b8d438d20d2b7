package dev.ax.store;

import dev.ax.domain.task.CanaryState;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * Canary rollouts of task changes: one ACTIVE row per task at most, changed only under the task's
 * row lock (the callers hold it), so the share counter and the state never race.
 */
public final class CanaryStore {
    private static final String COLUMNS = "id, task_id, task_name, stable_version, canary_version, percent, runs,"
            + " margin_points, min_runs, state, started_at, started_by, ended_at, ended_by, end_reason";

    /** A rollout as stored. Exactly one of {@code percent} and {@code runs} is set. */
    public record CanaryRow(
            long id,
            long taskId,
            String taskName,
            int stableVersion,
            int canaryVersion,
            Integer percent,
            Integer runs,
            int marginPoints,
            int minRuns,
            CanaryState state,
            Instant startedAt,
            String startedBy,
            Instant endedAt,
            String endedBy,
            String endReason) {}

    /** Ended runs of one version since the rollout started (test and preview runs not counted). */
    public record Outcomes(long ok, long failed) {}

    public long insert(
            Tx tx,
            long taskId,
            String taskName,
            int stableVersion,
            int canaryVersion,
            Integer percent,
            Integer runs,
            int marginPoints,
            int minRuns,
            String actor) {
        long id = tx.insert(
                        "INSERT INTO ax_canary (task_id, task_name, stable_version, canary_version, percent, runs,"
                                + " margin_points, min_runs, state, started_at, started_by) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'ACTIVE', CURRENT_TIMESTAMP, ?)",
                        taskId,
                        taskName,
                        stableVersion,
                        canaryVersion,
                        percent,
                        runs,
                        marginPoints,
                        minRuns,
                        actor)
                .orElseThrow();
        tx.update("UPDATE ax_task SET canary = TRUE WHERE id = ?", taskId);
        return id;
    }

    public Optional<CanaryRow> active(Tx tx, long taskId) {
        return tx.queryOne(
                "SELECT " + COLUMNS + " FROM ax_canary WHERE task_id = ? AND state = 'ACTIVE'",
                CanaryStore::map,
                taskId);
    }

    /** Rollouts of a task, newest first. */
    public List<CanaryRow> history(Tx tx, long taskId, int limit) {
        return tx.query(
                "SELECT " + COLUMNS + " FROM ax_canary WHERE task_id = ? ORDER BY id DESC LIMIT ?",
                CanaryStore::map,
                taskId,
                limit);
    }

    /**
     * Runs created on the canary version so far: counted, not stored, so the {@code runs: N} share
     * cannot drift from what exists (the caller holds the task's row lock while it decides).
     */
    public long runsOf(Tx tx, long taskId, int canaryVersion) {
        return tx.queryOne(
                        "SELECT COUNT(*) AS n FROM ax_instance WHERE task_id = ? AND task_version = ? AND cause NOT IN ('PREVIEW', 'TEST')",
                        r -> r.lng("n"),
                        taskId,
                        canaryVersion)
                .orElse(0L);
    }

    /** Ends an ACTIVE rollout; false if it had already ended (a lost race with another node's decision). */
    public boolean end(Tx tx, long id, CanaryState to, String actor, String reason) {
        CanaryState.MACHINE.check(CanaryState.ACTIVE, to);
        boolean ended = tx.update(
                        "UPDATE ax_canary SET state = ?, ended_at = CURRENT_TIMESTAMP, ended_by = ?, end_reason = ?"
                                + " WHERE id = ? AND state = 'ACTIVE'",
                        to,
                        actor,
                        reason,
                        id)
                == 1;
        if (ended) {
            tx.update("UPDATE ax_task SET canary = FALSE WHERE id = (SELECT task_id FROM ax_canary WHERE id = ?)", id);
        }
        return ended;
    }

    /** How the runs of the canary version created since {@code since} ended. */
    public Outcomes canaryOutcomes(Tx tx, long taskId, int canaryVersion, Instant since) {
        return outcomes(tx, "task_version = ?", taskId, canaryVersion, since);
    }

    /**
     * How the other runs of the task created since {@code since} ended: the stable version's, and
     * those of versions a pause or resume wrote meanwhile (the same definition, a new number).
     */
    public Outcomes stableOutcomes(Tx tx, long taskId, int canaryVersion, Instant since) {
        return outcomes(tx, "task_version <> ? AND task_version > 0", taskId, canaryVersion, since);
    }

    private static Outcomes outcomes(Tx tx, String version, long taskId, int canaryVersion, Instant since) {
        long[] n = new long[2];
        tx.query(
                "SELECT state, COUNT(*) AS n FROM ax_instance WHERE task_id = ? AND " + version + " AND created_at >= ?"
                        + " AND state IN ('SUCCESS', 'FAILED') AND cause NOT IN ('PREVIEW', 'TEST') GROUP BY state",
                r -> {
                    n[r.str("state").equals("SUCCESS") ? 0 : 1] += r.lng("n");
                    return null;
                },
                taskId,
                canaryVersion,
                since);
        return new Outcomes(n[0], n[1]);
    }

    private static CanaryRow map(Tx.Row r) throws SQLException {
        return new CanaryRow(
                r.lng("id"),
                r.lng("task_id"),
                r.str("task_name"),
                r.integer("stable_version"),
                r.integer("canary_version"),
                r.nullableInt("percent"),
                r.nullableInt("runs"),
                r.integer("margin_points"),
                r.integer("min_runs"),
                r.enumOf(CanaryState.class, "state"),
                r.instant("started_at"),
                r.str("started_by"),
                r.instant("ended_at"),
                r.str("ended_by"),
                r.str("end_reason"));
    }
}
