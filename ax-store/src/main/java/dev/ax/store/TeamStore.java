package dev.ax.store;

import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/** Teams (V38): names that tasks, workflows and token grants refer to. */
public final class TeamStore {
    public record TeamRow(String name, String description, Instant createdAt, String createdBy) {}

    /** Adds a team; false when the name is taken. */
    public boolean create(Tx tx, String name, String description, String actor) {
        return tx.update(
                        "INSERT INTO ax_team (name, description, created_at, created_by) SELECT ?, ?, CURRENT_TIMESTAMP, ?"
                                + " WHERE NOT EXISTS (SELECT 1 FROM ax_team WHERE name = ?)",
                        name,
                        description,
                        actor,
                        name)
                == 1;
    }

    public Optional<TeamRow> find(Tx tx, String name) {
        return tx.queryOne(
                "SELECT name, description, created_at, created_by FROM ax_team WHERE name = ?", TeamStore::map, name);
    }

    /** The team of {@code name}, kept from being deleted until the transaction ends (a task saved into it). */
    public Optional<TeamRow> hold(Tx tx, String name) {
        return tx.queryOne(
                "SELECT name, description, created_at, created_by FROM ax_team WHERE name = ?"
                        + tx.dialect().forKeyShare(),
                TeamStore::map,
                name);
    }

    public List<TeamRow> all(Tx tx) {
        return tx.query("SELECT name, description, created_at, created_by FROM ax_team ORDER BY name", TeamStore::map);
    }

    /** Locks the team for a delete; empty when there is none. */
    public Optional<TeamRow> lock(Tx tx, String name) {
        return tx.queryOne(
                "SELECT name, description, created_at, created_by FROM ax_team WHERE name = ? FOR UPDATE",
                TeamStore::map,
                name);
    }

    public boolean delete(Tx tx, String name) {
        return tx.update("DELETE FROM ax_team WHERE name = ?", name) == 1;
    }

    /** The tasks of a team, by name. */
    public List<String> tasksOf(Tx tx, String team) {
        return tx.query("SELECT name FROM ax_task WHERE team = ? ORDER BY name", r -> r.str("name"), team);
    }

    /** The workflows of a team, by name. */
    public List<String> workflowsOf(Tx tx, String team) {
        return tx.query("SELECT name FROM ax_workflow WHERE team = ? ORDER BY name", r -> r.str("name"), team);
    }

    // ---- who owns a thing: the team whose grants count for it ------------------------------------------------

    /** What the owner queries find: a thing that exists, and its team (null: none, only global roles count). */
    public record Owner(String team) {}

    public Optional<Owner> ownerOfTask(Tx tx, String name) {
        return tx.queryOne("SELECT team FROM ax_task WHERE name = ?", r -> new Owner(r.str("team")), name);
    }

    /** A run's owner is its task's team now; a run whose task was deleted has none. */
    public Optional<Owner> ownerOfRun(Tx tx, long id) {
        return tx.queryOne(
                "SELECT t.team FROM ax_instance i LEFT JOIN ax_task t ON t.id = i.task_id WHERE i.id = ?",
                r -> new Owner(r.str("team")),
                id);
    }

    public Optional<Owner> ownerOfBackfill(Tx tx, long id) {
        return tx.queryOne(
                "SELECT t.team FROM ax_backfill b LEFT JOIN ax_task t ON t.id = b.task_id WHERE b.id = ?",
                r -> new Owner(r.str("team")),
                id);
    }

    public Optional<Owner> ownerOfWorkflow(Tx tx, String name) {
        return tx.queryOne("SELECT team FROM ax_workflow WHERE name = ?", r -> new Owner(r.str("team")), name);
    }

    public Optional<Owner> ownerOfWorkflowRun(Tx tx, long id) {
        return tx.queryOne(
                "SELECT w.team FROM ax_workflow_run r LEFT JOIN ax_workflow w ON w.id = r.workflow_id WHERE r.id = ?",
                r -> new Owner(r.str("team")),
                id);
    }

    public Optional<Owner> ownerOfWorkflowBackfill(Tx tx, long id) {
        return tx.queryOne(
                "SELECT w.team FROM ax_workflow_backfill b LEFT JOIN ax_workflow w ON w.id = b.workflow_id WHERE b.id = ?",
                r -> new Owner(r.str("team")),
                id);
    }

    private static TeamRow map(Tx.Row r) throws SQLException {
        return new TeamRow(r.str("name"), r.str("description"), r.instant("created_at"), r.str("created_by"));
    }
}
