package dev.ax.store;

import dev.ax.domain.workflow.WorkflowBackfillState;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Workflow definitions and workflow backfills. The definition is stored as its canonical JSON
 * (the domain's {@code WorkflowCodec} reads and writes it); the columns the firing loop queries
 * ({@code enabled}, {@code next_fire_at}) sit beside it, as for tasks.
 */
public final class WorkflowStore {
    public record WorkflowRow(
            long id,
            String name,
            int version,
            Map<String, Object> definition,
            boolean enabled,
            Instant nextFireAt,
            Instant createdAt,
            String createdBy,
            Instant updatedAt,
            String updatedBy) {}

    public record BackfillRow(
            long id,
            long workflowId,
            String workflowName,
            Instant from,
            Instant to,
            int parallelism,
            boolean newestFirst,
            Map<String, Object> params,
            WorkflowBackfillState state,
            int total,
            int nextIndex,
            String createdBy,
            Instant createdAt) {}

    private static final String COLUMNS =
            "id, name, version, definition, enabled, next_fire_at, created_at, created_by, updated_at, updated_by";
    private static final String BACKFILL_COLUMNS =
            "id, workflow_id, workflow_name, range_from, range_to, parallelism, newest_first,"
                    + " params, state, total, next_index, created_by, created_at";

    public Optional<WorkflowRow> find(Tx tx, String name) {
        return tx.queryOne("SELECT " + COLUMNS + " FROM ax_workflow WHERE name = ?", WorkflowStore::map, name);
    }

    public Optional<WorkflowRow> lock(Tx tx, String name) {
        return tx.queryOne(
                "SELECT " + COLUMNS + " FROM ax_workflow WHERE name = ? FOR UPDATE", WorkflowStore::map, name);
    }

    public Optional<WorkflowRow> findById(Tx tx, long id) {
        return tx.queryOne("SELECT " + COLUMNS + " FROM ax_workflow WHERE id = ?", WorkflowStore::map, id);
    }

    public List<WorkflowRow> list(Tx tx, String afterName, int limit) {
        return tx.query(
                "SELECT " + COLUMNS + " FROM ax_workflow WHERE name > ? ORDER BY name LIMIT ?",
                WorkflowStore::map,
                afterName == null ? "" : afterName,
                limit);
    }

    public WorkflowRow insert(Tx tx, String name, Map<String, Object> definition, Instant nextFireAt, String actor) {
        long id = tx.insert(
                        "INSERT INTO ax_workflow (name, version, definition, team, enabled, next_fire_at, created_at, created_by,"
                                + " updated_at, updated_by) VALUES (?, 1, ?, ?, TRUE, ?, CURRENT_TIMESTAMP, ?, CURRENT_TIMESTAMP, ?)",
                        name,
                        Json.write(definition),
                        team(definition),
                        nextFireAt,
                        actor,
                        actor)
                .orElseThrow();
        return findById(tx, id).orElseThrow();
    }

    /** Replaces the definition of a locked workflow (a new version); throws if it changed meanwhile. */
    public WorkflowRow update(
            Tx tx, WorkflowRow current, Map<String, Object> definition, Instant nextFireAt, String actor) {
        int n = tx.update(
                "UPDATE ax_workflow SET version = ?, definition = ?, team = ?, next_fire_at = ?, updated_at = CURRENT_TIMESTAMP,"
                        + " updated_by = ? WHERE id = ? AND version = ?",
                current.version() + 1,
                Json.write(definition),
                team(definition),
                nextFireAt,
                actor,
                current.id(),
                current.version());
        expectOne(n, current);
        return findById(tx, current.id()).orElseThrow();
    }

    public void delete(Tx tx, WorkflowRow current) {
        expectOne(
                tx.update("DELETE FROM ax_workflow WHERE id = ? AND version = ?", current.id(), current.version()),
                current);
    }

    /** Enabled workflows with a due slot, locked; other nodes skip them (the same claim as tasks). */
    public List<WorkflowRow> lockDue(Tx tx, int limit) {
        return tx.query(
                "SELECT " + COLUMNS + " FROM ax_workflow WHERE enabled = TRUE AND next_fire_at IS NOT NULL"
                        + " AND next_fire_at <= CURRENT_TIMESTAMP ORDER BY next_fire_at LIMIT ?"
                        + tx.dialect().forUpdateSkipLocked(),
                WorkflowStore::map,
                limit);
    }

    public boolean advance(Tx tx, long id, int version, Instant nextFireAt) {
        return tx.update(
                        "UPDATE ax_workflow SET next_fire_at = ? WHERE id = ? AND version = ?", nextFireAt, id, version)
                == 1;
    }

    public Optional<Instant> earliestNextFire(Tx tx) {
        return tx.queryOne(
                        "SELECT MIN(next_fire_at) AS t FROM ax_workflow WHERE enabled = TRUE AND next_fire_at IS NOT NULL",
                        r -> r.instant("t"))
                .filter(t -> t != null);
    }

    // ---- backfills ----

    public long insertBackfill(
            Tx tx,
            long workflowId,
            String name,
            Instant from,
            Instant to,
            int parallelism,
            boolean newestFirst,
            Map<String, Object> params,
            int total,
            String actor) {
        return tx.insert(
                        "INSERT INTO ax_workflow_backfill (workflow_id, workflow_name, range_from, range_to, parallelism, newest_first,"
                                + " params, state, total, next_index, created_by, created_at, updated_at)"
                                + " VALUES (?, ?, ?, ?, ?, ?, ?, 'RUNNING', ?, 0, ?, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)",
                        workflowId,
                        name,
                        from,
                        to,
                        parallelism,
                        newestFirst,
                        params.isEmpty() ? null : Json.write(params),
                        total,
                        actor)
                .orElseThrow();
    }

    public Optional<BackfillRow> findBackfill(Tx tx, long id) {
        return tx.queryOne(
                "SELECT " + BACKFILL_COLUMNS + " FROM ax_workflow_backfill WHERE id = ?",
                WorkflowStore::mapBackfill,
                id);
    }

    /** Locks a running backfill; other nodes skip it rather than wait. */
    public Optional<BackfillRow> lockRunningBackfill(Tx tx, long id) {
        return tx.queryOne(
                "SELECT " + BACKFILL_COLUMNS + " FROM ax_workflow_backfill WHERE id = ? AND state = 'RUNNING'"
                        + tx.dialect().forUpdateSkipLocked(),
                WorkflowStore::mapBackfill,
                id);
    }

    public List<Long> runningBackfills(Tx tx, int limit) {
        return tx.query(
                "SELECT id FROM ax_workflow_backfill WHERE state = 'RUNNING' ORDER BY id LIMIT ?",
                r -> r.lng("id"),
                limit);
    }

    public void advanceBackfill(Tx tx, long id, int nextIndex) {
        tx.update(
                "UPDATE ax_workflow_backfill SET next_index = ?, updated_at = CURRENT_TIMESTAMP WHERE id = ?",
                nextIndex,
                id);
    }

    public boolean setBackfillState(Tx tx, long id, WorkflowBackfillState from, WorkflowBackfillState to) {
        WorkflowBackfillState.MACHINE.check(from, to);
        return tx.update(
                        "UPDATE ax_workflow_backfill SET state = ?, updated_at = CURRENT_TIMESTAMP WHERE id = ? AND state = ?",
                        to,
                        id,
                        from)
                == 1;
    }

    private static void expectOne(int n, WorkflowRow current) {
        if (n != 1) {
            throw new ConcurrentChangeException(
                    "workflow " + current.name() + " changed meanwhile (version " + current.version() + ")");
        }
    }

    private static WorkflowRow map(Tx.Row r) throws SQLException {
        return new WorkflowRow(
                r.lng("id"),
                r.str("name"),
                r.integer("version"),
                Json.readMap(r.str("definition")),
                r.bool("enabled"),
                r.instant("next_fire_at"),
                r.instant("created_at"),
                r.str("created_by"),
                r.instant("updated_at"),
                r.str("updated_by"));
    }

    private static BackfillRow mapBackfill(Tx.Row r) throws SQLException {
        String params = r.str("params");
        return new BackfillRow(
                r.lng("id"),
                r.lng("workflow_id"),
                r.str("workflow_name"),
                r.instant("range_from"),
                r.instant("range_to"),
                r.integer("parallelism"),
                r.bool("newest_first"),
                params == null ? Map.of() : Json.readMap(params),
                r.enumOf(WorkflowBackfillState.class, "state"),
                r.integer("total"),
                r.integer("next_index"),
                r.str("created_by"),
                r.instant("created_at"));
    }

    /** The team a canonical definition names, kept in a column of its own to be found by. */
    private static String team(Map<String, Object> definition) {
        return definition.get("team") instanceof String t ? t : null;
    }
}
