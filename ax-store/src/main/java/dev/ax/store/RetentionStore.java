package dev.ax.store;

import dev.ax.domain.run.RunState;
import dev.ax.domain.task.RunRetention;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * What history retention reads and deletes. Which runs may go is the scheduler's policy ({@code Expiry}); this store
 * reads each candidate with every fact that policy needs in one statement, and deletes what it was told, in bounded
 * batches that lock only ended runs, skipping any another node holds, so neither the firing nor the claim path (which
 * touch only runs that have not ended) ever waits for it.
 */
public final class RetentionStore {
    /** Rows per IN list: well inside every driver's limit on bound parameters. */
    static final int IN_CHUNK = 500;

    private static final String TERMINAL = Arrays.stream(RunState.values())
            .filter(RunState::isTerminal)
            .map(Tx::literal)
            .collect(Collectors.joining(", "));

    /**
     * One run as retention judges it.
     *
     * @param endedAt     when it reached its terminal state (its last change when it has not)
     * @param superseded  its task has a newer run
     * @param keyHolder   a success holding its task's {@code policy.idempotencyKey}, the task still existing
     * @param triggerKey  a trigger's Idempotency-Key younger than the window answers with it
     * @param followUp    a failure follow-up of it is still pending
     * @param workflow    it is a step of a workflow run still in progress
     */
    public record Candidate(
            long id,
            long taskId,
            RunState state,
            Instant endedAt,
            Instant createdAt,
            boolean superseded,
            boolean keyHolder,
            boolean triggerKey,
            boolean followUp,
            boolean workflow) {}

    // Each fact a subquery on an index: (task_id, id); ax_task's primary key; ax_trigger_key (instance_id);
    // ax_follow_up (instance_id, position); ax_workflow_run's primary key.
    private static final String CANDIDATE =
            "SELECT i.id, i.task_id, i.state, COALESCE(i.finished_at, i.updated_at) AS ended_at,"
                    + " i.created_at,"
                    + " CASE WHEN EXISTS (SELECT 1 FROM ax_instance n WHERE n.task_id = i.task_id AND n.id > i.id)"
                    + " THEN 1 ELSE 0 END AS superseded,"
                    + " CASE WHEN i.state = 'SUCCESS' AND i.request_id IS NOT NULL"
                    + " AND EXISTS (SELECT 1 FROM ax_task t WHERE t.id = i.task_id) THEN 1 ELSE 0 END AS key_holder,"
                    + " CASE WHEN EXISTS (SELECT 1 FROM ax_trigger_key k WHERE k.instance_id = i.id AND k.created_at >= ?)"
                    + " THEN 1 ELSE 0 END AS trigger_key,"
                    + " CASE WHEN EXISTS (SELECT 1 FROM ax_follow_up f WHERE f.instance_id = i.id AND f.state = 'PENDING')"
                    + " THEN 1 ELSE 0 END AS follow_up,"
                    + " CASE WHEN i.workflow_run_id IS NOT NULL AND EXISTS (SELECT 1 FROM ax_workflow_run w"
                    + " WHERE w.id = i.workflow_run_id AND w.state = 'RUNNING') THEN 1 ELSE 0 END AS workflow"
                    + " FROM ax_instance i";

    /**
     * Runs with an id above {@code afterId}, oldest first: a stretch of the primary key, the whole table's pass.
     *
     * @param keysFrom trigger keys created before this are past their window and hold nothing
     */
    public List<Candidate> after(Tx tx, long afterId, Instant keysFrom, int limit) {
        return tx.query(
                CANDIDATE + " WHERE i.id > ? ORDER BY i.id LIMIT ?",
                RetentionStore::candidate,
                keysFrom,
                afterId,
                limit);
    }

    /** One task's runs with an id above {@code afterId}, oldest first (the index by task and id). */
    public List<Candidate> ofTask(Tx tx, long taskId, long afterId, Instant keysFrom, int limit) {
        return tx.query(
                CANDIDATE + " WHERE i.task_id = ? AND i.id > ? ORDER BY i.id LIMIT ?",
                RetentionStore::candidate,
                keysFrom,
                taskId,
                afterId,
                limit);
    }

    /**
     * When the first run after {@code afterId} (of one task, unless {@code taskId} is null) was created: one probe of an
     * index, so that a walk that has nothing to judge does not read a page of runs and their facts to find that out.
     */
    public Optional<Instant> firstCreatedAfter(Tx tx, Long taskId, long afterId) {
        return taskId == null
                ? tx.queryOne(
                        "SELECT created_at FROM ax_instance WHERE id > ? ORDER BY id LIMIT 1",
                        r -> r.instant("created_at"),
                        afterId)
                : tx.queryOne(
                        "SELECT created_at FROM ax_instance WHERE task_id = ? AND id > ? ORDER BY id LIMIT 1",
                        r -> r.instant("created_at"),
                        taskId,
                        afterId);
    }

    /** The tasks with a {@code policy.retention} of their own, by id. */
    public Map<Long, RunRetention> overrides(Tx tx) {
        Map<Long, RunRetention> byTask = new HashMap<>();
        tx.query(
                "SELECT id, retention_runs_ms, retention_failed_ms, retention_keep_last FROM ax_task"
                        + " WHERE retention_runs_ms IS NOT NULL OR retention_failed_ms IS NOT NULL"
                        + " OR retention_keep_last IS NOT NULL",
                r -> byTask.put(
                        r.lng("id"),
                        new RunRetention(
                                duration(r.nullableLong("retention_runs_ms")),
                                duration(r.nullableLong("retention_failed_ms")),
                                r.nullableInt("retention_keep_last"))));
        return byTask;
    }

    /** The id of a task's {@code n}-th newest run: that run and newer ones are its newest {@code n}; empty when it has fewer. */
    public Optional<Long> nthNewest(Tx tx, long taskId, int n) {
        return tx.queryOne(
                "SELECT id FROM ax_instance WHERE task_id = ? ORDER BY id DESC LIMIT 1 OFFSET ?",
                r -> r.lng("id"),
                taskId,
                n - 1);
    }

    /** Tasks with runs waiting for their dependencies, and the slot of the oldest such run of each. */
    public Map<Long, Instant> oldestWaitingForDependencies(Tx tx) {
        Map<Long, Instant> byTask = new HashMap<>();
        tx.query(
                "SELECT task_id, MIN(scheduled_at) AS oldest FROM ax_instance WHERE state = "
                        + Tx.literal(RunState.WAITING_DEPENDENCY) + " GROUP BY task_id",
                r -> byTask.put(r.lng("task_id"), r.instant("oldest")));
        return byTask;
    }

    /** Tasks with a {@code previousSlot} dependency: each of their slots waits for the one before it. */
    public List<Long> tasksWaitingForTheirPreviousSlot(Tx tx) {
        return tx.query(
                "SELECT t.id FROM ax_task t JOIN ax_task_dependency d ON d.task_id = t.id AND d.upstream_name = t.name",
                r -> r.lng("id"));
    }

    /**
     * Deletes these runs with their events, output, shards and follow-ups; returns how many runs went. Only ended
     * runs are deleted, and only those no other transaction holds (another node deleting them, a log cap), so this
     * waits for nobody on PostgreSQL; on the embedded database runs are locked in id order.
     */
    public int deleteRuns(Tx tx, List<Long> ids) {
        int deleted = 0;
        for (List<Long> part : chunks(ids)) {
            List<Long> mine = tx.query(
                    "SELECT id FROM ax_instance WHERE id IN (" + marks(part.size()) + ") AND state IN (" + TERMINAL
                            + ") ORDER BY id" + tx.dialect().forUpdateSkipLocked(),
                    r -> r.lng("id"),
                    part.toArray());
            if (mine.isEmpty()) {
                continue;
            }
            Object[] args = mine.toArray();
            String in = " IN (" + marks(mine.size()) + ")";
            tx.update("DELETE FROM ax_event WHERE instance_id" + in, args);
            // Bounded by the batch's oldest run, so that on PostgreSQL only the days since are looked into.
            tx.update(
                    "DELETE FROM ax_log WHERE instance_id" + in
                            + " AND at >= (SELECT MIN(r.created_at) FROM ax_instance r WHERE r.id" + in + ")",
                    twice(args));
            tx.update("DELETE FROM ax_shard WHERE instance_id" + in, args);
            tx.update("DELETE FROM ax_follow_up WHERE instance_id" + in, args);
            deleted += tx.update("DELETE FROM ax_instance WHERE id" + in, args);
        }
        return deleted;
    }

    /**
     * Deletes up to {@code limit} workflow runs that finished before {@code before}, with their node rows and events;
     * returns how many. A workflow run someone re-runs at the same moment is locked by them and skipped.
     */
    public int deleteWorkflowRunsFinishedBefore(Tx tx, Instant before, int limit) {
        List<Long> ids = tx.query(
                "SELECT id FROM ax_workflow_run WHERE state <> 'RUNNING' AND finished_at < ? ORDER BY id LIMIT ?"
                        + tx.dialect().forUpdateSkipLocked(),
                r -> r.lng("id"),
                before,
                limit);
        if (ids.isEmpty()) {
            return 0;
        }
        Object[] args = ids.toArray();
        String in = " IN (" + marks(ids.size()) + ")";
        tx.update("DELETE FROM ax_workflow_node_run WHERE workflow_run_id" + in, args);
        tx.update("DELETE FROM ax_event WHERE workflow_run_id" + in, args);
        return tx.update("DELETE FROM ax_workflow_run WHERE id" + in, args);
    }

    /** An event as retention sees it: a task's own (no run, no workflow run) or not, and when it happened. */
    public record EventAge(long id, boolean taskOwn, Instant at) {}

    /**
     * Events with an id above {@code afterId}, oldest first. A task's own events are rare and have no index of their
     * own (one over the whole event table would cost every run a write); the caller walks the table once, remembering
     * where it stopped.
     */
    public List<EventAge> eventsAfter(Tx tx, long afterId, int limit) {
        return tx.query(
                "SELECT id, CASE WHEN instance_id IS NULL AND workflow_run_id IS NULL THEN 1 ELSE 0 END AS own, at"
                        + " FROM ax_event WHERE id > ? ORDER BY id LIMIT ?",
                r -> new EventAge(r.lng("id"), r.integer("own") == 1, r.instant("at")),
                afterId,
                limit);
    }

    /** Deletes these events of no run and no workflow run; returns how many. */
    public int deleteTaskEvents(Tx tx, List<Long> ids) {
        int deleted = 0;
        for (List<Long> part : chunks(ids)) {
            deleted += tx.update(
                    "DELETE FROM ax_event WHERE id IN (" + marks(part.size())
                            + ") AND instance_id IS NULL AND workflow_run_id IS NULL",
                    part.toArray());
        }
        return deleted;
    }

    private static Object[] twice(Object[] args) {
        Object[] both = Arrays.copyOf(args, args.length * 2);
        System.arraycopy(args, 0, both, args.length, args.length);
        return both;
    }

    private static List<List<Long>> chunks(List<Long> ids) {
        List<List<Long>> parts = new ArrayList<>();
        for (int i = 0; i < ids.size(); i += IN_CHUNK) {
            parts.add(ids.subList(i, Math.min(ids.size(), i + IN_CHUNK)));
        }
        return parts;
    }

    private static String marks(int n) {
        return String.join(", ", Collections.nCopies(n, "?"));
    }

    private static Duration duration(Long millis) {
        return millis == null ? null : Duration.ofMillis(millis);
    }

    private static Candidate candidate(Tx.Row r) throws SQLException {
        return new Candidate(
                r.lng("id"),
                r.lng("task_id"),
                r.enumOf(RunState.class, "state"),
                r.instant("ended_at"),
                r.instant("created_at"),
                r.integer("superseded") == 1,
                r.integer("key_holder") == 1,
                r.integer("trigger_key") == 1,
                r.integer("follow_up") == 1,
                r.integer("workflow") == 1);
    }
}
