package dev.ax.store.read;

import dev.ax.store.SlotKeys;
import dev.ax.store.Tx;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * Reads over a task's past runs that anomaly detection and alert texts are made of: the slot
 * audit's runs, long-running runs and their task's usual durations, a run of failures. Each is
 * served by the (task, id) index or the scheduled-slot index (SlotKeys), never a full scan.
 */
public final class RunHistoryReads {
    private RunHistoryReads() {}

    /** A scheduled run and the slot it ran for. */
    public record SlotRun(long id, Instant scheduledAt) {}

    /** A RUNNING run and when its attempt started. */
    public record Running(long id, long taskId, int attempt, Instant startedAt) {}

    /** The task's scheduled runs created after run {@code afterId}, whatever their slot. */
    public static List<SlotRun> scheduledRunsAfter(Tx tx, long taskId, long afterId) {
        return tx.query(
                "SELECT id, scheduled_at FROM ax_instance WHERE task_id = ? AND id > ? AND " + SlotKeys.SCHEDULED,
                r -> new SlotRun(r.lng("id"), r.instant("scheduled_at")),
                taskId,
                afterId);
    }

    /** The task's newest run id, 0 when it has none. */
    public static long lastRunId(Tx tx, long taskId) {
        return tx.queryOne("SELECT MAX(id) AS m FROM ax_instance WHERE task_id = ?", r -> r.lng("m"), taskId)
                .orElse(0L);
    }

    /** A task's scheduled runs for the slots in {@code (from, to]}, by id: a range of their fire keys. */
    public static List<SlotRun> scheduledRunsForSlots(Tx tx, long taskId, Instant from, Instant to) {
        return tx.query(
                "SELECT id, scheduled_at FROM ax_instance WHERE task_id = ? AND " + SlotKeys.SCHEDULED
                        + " AND fire_key >= ? AND fire_key < ? AND scheduled_at > ? AND scheduled_at <= ? ORDER BY id",
                r -> new SlotRun(r.lng("id"), r.instant("scheduled_at")),
                taskId,
                SlotKeys.floor(from),
                SlotKeys.ceiling(to),
                from,
                to);
    }

    /** Up to {@code limit} RUNNING runs whose attempt started before {@code before}, oldest id first. */
    public static List<Running> runningSince(Tx tx, Instant before, int limit) {
        // The RUNNING runs first (the fence keeps them a query of their own), then the oldest of them: ordered by id
        // outright, PostgreSQL walked the primary key over the whole history to find them (400 ms at 400,000 runs).
        tx.preferPlainIndexScans();
        return tx.query(
                "SELECT id, task_id, attempt, started_at FROM (SELECT id, task_id, attempt, started_at"
                        + " FROM ax_instance WHERE state = 'RUNNING' AND started_at < ?"
                        + tx.dialect().subqueryFence()
                        + ") r ORDER BY id LIMIT ?",
                r -> new Running(r.lng("id"), r.lng("task_id"), r.integer("attempt"), r.instant("started_at")),
                before,
                limit);
    }

    /** How long the task's newest {@code limit} successes took, newest first. */
    public static List<Duration> successDurations(Tx tx, long taskId, int limit) {
        return tx.query(
                "SELECT started_at, finished_at FROM ax_instance WHERE task_id = ? AND state = 'SUCCESS'"
                        + " AND started_at IS NOT NULL AND finished_at IS NOT NULL ORDER BY id DESC LIMIT ?",
                x -> Duration.between(x.instant("started_at"), x.instant("finished_at")),
                taskId,
                limit);
    }

    /** How many final failures of the task (previews aside) came right before run {@code beforeId}, looking at most {@code limit} back. */
    public static int failuresBefore(Tx tx, long taskId, long beforeId, int limit) {
        List<String> states = tx.query(
                "SELECT state FROM ax_instance WHERE task_id = ? AND id < ? AND state IN ('SUCCESS', 'FAILED')"
                        + " AND cause <> 'PREVIEW' ORDER BY id DESC LIMIT ?",
                r -> r.str("state"),
                taskId,
                beforeId,
                limit);
        int n = 0;
        while (n < states.size() && states.get(n).equals("FAILED")) {
            n++;
        }
        return n;
    }

    /** Whether run {@code id} still exists (retention may have taken it). */
    public static boolean exists(Tx tx, long id) {
        return tx.queryOne("SELECT 1 AS one FROM ax_instance WHERE id = ?", r -> 1, id)
                .isPresent();
    }
}
