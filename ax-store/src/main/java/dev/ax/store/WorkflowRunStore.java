package dev.ax.store;

import dev.ax.domain.run.EventType;
import dev.ax.domain.workflow.NodeState;
import dev.ax.domain.workflow.WorkflowRunState;
import java.sql.SQLException;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Workflow runs, their node runs, and the events about them. Every state change is a conditional
 * update whose row count tells whether it happened (zero: someone else got there first).
 */
public final class WorkflowRunStore {
    public record WorkflowRunRow(
            long id,
            long workflowId,
            String workflowName,
            int workflowVersion,
            Map<String, Object> definition,
            String cause,
            String fireKey,
            Instant scheduledAt,
            Map<String, Object> params,
            WorkflowRunState state,
            Long backfillId,
            String actor,
            Instant createdAt,
            Instant updatedAt,
            Instant finishedAt) {}

    public record NewWorkflowRun(
            long workflowId,
            String workflowName,
            int workflowVersion,
            Map<String, Object> definition,
            String cause,
            String fireKey,
            Instant scheduledAt,
            Map<String, Object> params,
            Long backfillId,
            String actor,
            String nodeId) {}

    public record NodeRunRow(
            long runId,
            String node,
            String taskName,
            NodeState state,
            Long instanceId,
            int attempts,
            String reason,
            boolean noticed,
            Instant updatedAt) {}

    /** A workflow event: no task, no run; the run is named. */
    public record RunEvent(
            long id,
            Long runId,
            EventType type,
            String actor,
            String nodeId,
            Instant at,
            String message,
            Map<String, Object> data) {}

    private static final String RUN_COLUMNS =
            "id, workflow_id, workflow_name, workflow_version, definition, cause, fire_key, scheduled_at,"
                    + " params, state, backfill_id, actor, created_at, updated_at, finished_at";
    private static final String NODE_COLUMNS =
            "workflow_run_id, node_name, task_name, state, instance_id, attempts, reason, noticed, updated_at";

    /** Creates a RUNNING run, or returns empty when its (workflow, fire key) slot already has one. */
    public Optional<Long> insert(Tx tx, NewWorkflowRun n) {
        return tx.insertUnlessDuplicate(
                "INSERT INTO ax_workflow_run (workflow_id, workflow_name, workflow_version, definition, cause,"
                        + " fire_key, scheduled_at, params, state, backfill_id, actor, node_id, created_at, updated_at)"
                        + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'RUNNING', ?, ?, ?, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)"
                        + tx.dialect().onConflictDoNothing("workflow_id, fire_key"),
                n.workflowId(),
                n.workflowName(),
                n.workflowVersion(),
                Json.write(n.definition()),
                n.cause(),
                n.fireKey(),
                n.scheduledAt(),
                n.params().isEmpty() ? null : Json.write(n.params()),
                n.backfillId(),
                n.actor(),
                n.nodeId());
    }

    public Optional<WorkflowRunRow> find(Tx tx, long id) {
        return tx.queryOne(
                "SELECT " + RUN_COLUMNS + " FROM ax_workflow_run WHERE id = ?", WorkflowRunStore::mapRun, id);
    }

    public Optional<WorkflowRunRow> lock(Tx tx, long id) {
        return tx.queryOne(
                "SELECT " + RUN_COLUMNS + " FROM ax_workflow_run WHERE id = ? FOR UPDATE",
                WorkflowRunStore::mapRun,
                id);
    }

    /** Locks a RUNNING run unless another node holds it (that node is advancing it already). */
    public Optional<WorkflowRunRow> lockRunningSkipLocked(Tx tx, long id) {
        return tx.queryOne(
                "SELECT " + RUN_COLUMNS + " FROM ax_workflow_run WHERE id = ? AND state = 'RUNNING'"
                        + tx.dialect().forUpdateSkipLocked(),
                WorkflowRunStore::mapRun,
                id);
    }

    public Optional<WorkflowRunRow> findBySlot(Tx tx, long workflowId, String fireKey) {
        return tx.queryOne(
                "SELECT " + RUN_COLUMNS + " FROM ax_workflow_run WHERE workflow_id = ? AND fire_key = ?",
                WorkflowRunStore::mapRun,
                workflowId,
                fireKey);
    }

    /** Runs newest first; {@code workflowName} null for all; {@code beforeId} is the page cursor. */
    public List<WorkflowRunRow> list(Tx tx, String workflowName, long beforeId, int limit) {
        if (workflowName == null) {
            return tx.query(
                    "SELECT " + RUN_COLUMNS + " FROM ax_workflow_run WHERE id < ? ORDER BY id DESC LIMIT ?",
                    WorkflowRunStore::mapRun,
                    beforeId,
                    limit);
        }
        return tx.query(
                "SELECT " + RUN_COLUMNS
                        + " FROM ax_workflow_run WHERE workflow_name = ? AND id < ? ORDER BY id DESC LIMIT ?",
                WorkflowRunStore::mapRun,
                workflowName,
                beforeId,
                limit);
    }

    public List<WorkflowRunRow> ofBackfill(Tx tx, long backfillId) {
        return tx.query(
                "SELECT " + RUN_COLUMNS + " FROM ax_workflow_run WHERE backfill_id = ? ORDER BY id",
                WorkflowRunStore::mapRun,
                backfillId);
    }

    public int countRunningOfBackfill(Tx tx, long backfillId) {
        return tx.queryOne(
                        "SELECT COUNT(*) AS n FROM ax_workflow_run WHERE backfill_id = ? AND state = 'RUNNING'",
                        r -> r.integer("n"),
                        backfillId)
                .orElse(0);
    }

    /** Moves a run from one state to another; false if it was not in {@code from}. Finishing sets finished_at, reopening clears it. */
    public boolean setState(Tx tx, long id, WorkflowRunState from, WorkflowRunState to) {
        WorkflowRunState.MACHINE.check(from, to);
        String finished = to.isFinished() ? "CURRENT_TIMESTAMP" : "NULL";
        return tx.update(
                        "UPDATE ax_workflow_run SET state = ?, updated_at = CURRENT_TIMESTAMP, finished_at = "
                                + finished + " WHERE id = ? AND state = ?",
                        to,
                        id,
                        from)
                == 1;
    }

    /** RUNNING runs with a node whose end has not been acted on: what the workflow loop advances. */
    public List<Long> runsToAdvance(Tx tx, int limit) {
        return tx.query(
                "SELECT DISTINCT workflow_run_id FROM ax_workflow_node_run WHERE noticed = FALSE ORDER BY workflow_run_id LIMIT ?",
                r -> r.lng("workflow_run_id"),
                limit);
    }

    // ---- node runs ----

    public void insertNode(Tx tx, long runId, String node, String taskName) {
        tx.update(
                "INSERT INTO ax_workflow_node_run (workflow_run_id, node_name, task_name, state, instance_id, attempts, reason, noticed,"
                        + " updated_at) VALUES (?, ?, ?, 'PENDING', NULL, 0, NULL, TRUE, CURRENT_TIMESTAMP)",
                runId,
                node,
                taskName);
    }

    public List<NodeRunRow> nodes(Tx tx, long runId) {
        return tx.query(
                "SELECT " + NODE_COLUMNS + " FROM ax_workflow_node_run WHERE workflow_run_id = ? ORDER BY node_name",
                WorkflowRunStore::mapNode,
                runId);
    }

    /** PENDING → RUNNING with its new run; counts the attempt. */
    public boolean startNode(Tx tx, long runId, String node, long instanceId) {
        return tx.update(
                        "UPDATE ax_workflow_node_run SET state = 'RUNNING', instance_id = ?, attempts = attempts + 1, reason = NULL,"
                                + " updated_at = CURRENT_TIMESTAMP WHERE workflow_run_id = ? AND node_name = ? AND state = 'PENDING'",
                        instanceId,
                        runId,
                        node)
                == 1;
    }

    /** Sets a node's state when the run itself decides it (skip by rule, a run created already final). */
    public boolean setNode(Tx tx, long runId, String node, NodeState from, NodeState to, String reason) {
        NodeState.MACHINE.check(from, to);
        return tx.update(
                        "UPDATE ax_workflow_node_run SET state = ?, reason = ?, updated_at = CURRENT_TIMESTAMP"
                                + " WHERE workflow_run_id = ? AND node_name = ? AND state = ?",
                        to,
                        reason,
                        runId,
                        node,
                        from)
                == 1;
    }

    /**
     * The run of a RUNNING node ended: the node takes its final state and is flagged for the
     * workflow loop. Zero rows for a run that is no node's current one (the common case).
     */
    public int instanceEnded(Tx tx, long instanceId, NodeState to, String reason) {
        NodeState.MACHINE.check(NodeState.RUNNING, to);
        return tx.update(
                "UPDATE ax_workflow_node_run SET state = ?, reason = ?, noticed = FALSE, updated_at = CURRENT_TIMESTAMP"
                        + " WHERE instance_id = ? AND state = 'RUNNING'",
                to,
                reason,
                instanceId);
    }

    /** The run has acted on these nodes' ends. Only rows still final and unnoticed change. */
    public void markNoticed(Tx tx, long runId) {
        tx.update(
                "UPDATE ax_workflow_node_run SET noticed = TRUE WHERE workflow_run_id = ? AND noticed = FALSE"
                        + " AND state IN ('SUCCESS', 'FAILED', 'SKIPPED')",
                runId);
    }

    /** Back to PENDING for a rerun; the old node runs stay linked to the workflow run through ax_instance.workflow_run_id. */
    public int resetNode(Tx tx, long runId, String node) {
        return tx.update(
                "UPDATE ax_workflow_node_run SET state = 'PENDING', instance_id = NULL, reason = NULL, noticed = TRUE,"
                        + " updated_at = CURRENT_TIMESTAMP WHERE workflow_run_id = ? AND node_name = ? AND state IN ('SUCCESS', 'FAILED', 'SKIPPED')",
                runId,
                node);
    }

    /**
     * RUNNING nodes whose run is already final: an end that no hook reported (the safety
     * net; every path that ends a run normally reports it in its own transaction).
     */
    public List<long[]> endedUnreported(Tx tx, int limit) {
        return tx.query(
                "SELECT n.workflow_run_id, n.instance_id FROM ax_workflow_node_run n JOIN ax_instance i ON i.id = n.instance_id"
                        + " WHERE n.state = 'RUNNING' AND i.state IN ('SUCCESS', 'FAILED', 'TERMINATED', 'CANCELED', 'SKIPPED') LIMIT ?",
                r -> new long[] {r.lng("workflow_run_id"), r.lng("instance_id")},
                limit);
    }

    /** Links a run to the workflow run that created it. */
    public void tagRun(Tx tx, long instanceId, long runId) {
        tx.update("UPDATE ax_instance SET workflow_run_id = ? WHERE id = ?", runId, instanceId);
    }

    /** How many runs each task had in a run (reruns included). */
    public Map<String, Integer> instanceCounts(Tx tx, long runId) {
        Map<String, Integer> counts = new TreeMap<>();
        tx.query(
                "SELECT task_name, COUNT(*) AS n FROM ax_instance WHERE workflow_run_id = ? GROUP BY task_name",
                r -> {
                    counts.put(r.str("task_name"), r.integer("n"));
                    return null;
                },
                runId);
        return counts;
    }

    // ---- events ----

    public void event(
            Tx tx,
            Long runId,
            String workflowName,
            EventType type,
            String actor,
            String nodeId,
            String message,
            Map<String, Object> data) {
        tx.update(
                "INSERT INTO ax_event (instance_id, task_id, task_name, type, actor, node_id, at, message, data, workflow_run_id)"
                        + " VALUES (NULL, NULL, NULL, ?, ?, ?, CURRENT_TIMESTAMP, ?, ?, ?)",
                type,
                actor,
                nodeId,
                message,
                Json.write(withWorkflow(workflowName, data == null ? Map.of() : data)),
                runId);
    }

    private static Map<String, Object> withWorkflow(String name, Map<String, Object> data) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("workflow", name);
        m.putAll(data);
        return m;
    }

    public List<RunEvent> events(Tx tx, long runId) {
        return tx.query(
                "SELECT id, workflow_run_id, type, actor, node_id, at, message, data FROM ax_event WHERE workflow_run_id = ?"
                        + " ORDER BY id",
                r -> {
                    String data = r.str("data");
                    return new RunEvent(
                            r.lng("id"),
                            r.nullableLong("workflow_run_id"),
                            r.enumOf(EventType.class, "type"),
                            r.str("actor"),
                            r.str("node_id"),
                            r.instant("at"),
                            r.str("message"),
                            data == null ? Map.of() : Json.readMap(data));
                },
                runId);
    }

    private static WorkflowRunRow mapRun(Tx.Row r) throws SQLException {
        String params = r.str("params");
        return new WorkflowRunRow(
                r.lng("id"),
                r.lng("workflow_id"),
                r.str("workflow_name"),
                r.integer("workflow_version"),
                Json.readMap(r.str("definition")),
                r.str("cause"),
                r.str("fire_key"),
                r.instant("scheduled_at"),
                params == null ? Map.of() : Json.readMap(params),
                r.enumOf(WorkflowRunState.class, "state"),
                r.nullableLong("backfill_id"),
                r.str("actor"),
                r.instant("created_at"),
                r.instant("updated_at"),
                r.instant("finished_at"));
    }

    private static NodeRunRow mapNode(Tx.Row r) throws SQLException {
        return new NodeRunRow(
                r.lng("workflow_run_id"),
                r.str("node_name"),
                r.str("task_name"),
                r.enumOf(NodeState.class, "state"),
                r.nullableLong("instance_id"),
                r.integer("attempts"),
                r.str("reason"),
                r.bool("noticed"),
                r.instant("updated_at"));
    }
}
