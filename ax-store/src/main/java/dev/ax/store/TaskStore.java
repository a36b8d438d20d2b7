package dev.ax.store;

import dev.ax.domain.task.TaskDefinition;
import dev.ax.domain.task.TaskDefinitionCodec;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Tasks and their audit log. Every write also appends a version row in the same transaction, which
 * is why both live here (and why the file is longer than most): a task row and its version history
 * never change apart. Also the firing loop's due claim and wake-up, and the one cache of parsed
 * definitions ({@link DefinitionCache}).
 */
public final class TaskStore {
    private final DefinitionCache definitions = new DefinitionCache();

    private static final String COLUMNS =
            "id, name, version, definition, enabled, next_fire_at, created_at, created_by, updated_at, updated_by, canary,"
                    // Read with the row (and its lock): whether any task waits for this one (dependsOn).
                    + " EXISTS (SELECT 1 FROM ax_task_dependency d WHERE d.upstream_name = ax_task.name) AS has_dependents";

    public Optional<TaskRow> find(Tx tx, String name) {
        return tx.queryOne("SELECT " + COLUMNS + " FROM ax_task WHERE name = ?", r -> map(tx, r), name);
    }

    public Optional<TaskRow> findById(Tx tx, long id) {
        return tx.queryOne("SELECT " + COLUMNS + " FROM ax_task WHERE id = ?", r -> map(tx, r), id);
    }

    /**
     * What the end of a run needs to know about its task besides its definition (read by version,
     * and cached): the current version, whether it has an active canary and whether any task
     * depends on it. For many tasks in one statement, without their definitions' text.
     */
    public record EndFlags(long id, int version, boolean canary, boolean hasDependents) {}

    /** {@link EndFlags} of the tasks of {@code ids} that exist, by id (read, not locked). */
    public Map<Long, EndFlags> endFlags(Tx tx, Collection<Long> ids) {
        if (ids.isEmpty()) {
            return Map.of();
        }
        Map<Long, EndFlags> flags = new HashMap<>();
        for (EndFlags f : tx.query(
                "SELECT id, version, canary, EXISTS (SELECT 1 FROM ax_task_dependency d"
                        + " WHERE d.upstream_name = ax_task.name) AS has_dependents FROM ax_task WHERE id IN ("
                        + String.join(", ", Collections.nCopies(ids.size(), "?")) + ")",
                r -> new EndFlags(r.lng("id"), r.integer("version"), r.bool("canary"), r.bool("has_dependents")),
                ids.toArray())) {
            flags.put(f.id(), f);
        }
        return flags;
    }

    /** Locks the task row for the rest of the transaction: edits and firing of one task never interleave. */
    public Optional<TaskRow> lock(Tx tx, String name) {
        return tx.queryOne("SELECT " + COLUMNS + " FROM ax_task WHERE name = ? FOR UPDATE", r -> map(tx, r), name);
    }

    /**
     * Keeps a task from being deleted or edited until the transaction ends, without serialising
     * the transactions that do the same ({@link Dialect#forKeyShare}): for admitting runs of a task
     * whose admission needs no decision under its lock.
     */
    public Optional<TaskRow> lockShared(Tx tx, String name) {
        return tx.queryOne(
                "SELECT " + COLUMNS + " FROM ax_task WHERE name = ?"
                        + tx.dialect().forKeyShare(),
                r -> map(tx, r),
                name);
    }

    /** Locks a task row by id (the concurrency gate's serialisation point); empty if it was deleted. */
    public Optional<TaskRow> lockById(Tx tx, long id) {
        return tx.queryOne("SELECT " + COLUMNS + " FROM ax_task WHERE id = ? FOR UPDATE", r -> map(tx, r), id);
    }

    /** Tasks by name, after {@code afterName} (the page cursor), optionally only names containing {@code search}. */
    public List<TaskRow> list(Tx tx, String afterName, String search, int limit) {
        String like = search == null || search.isBlank()
                ? "%"
                : "%" + search.replace("%", "\\%").replace("_", "\\_") + "%";
        return tx.query(
                "SELECT " + COLUMNS + " FROM ax_task WHERE name > ? AND name LIKE ? ORDER BY name LIMIT ?",
                r -> map(tx, r),
                afterName == null ? "" : afterName,
                like,
                limit);
    }

    public TaskRow insert(Tx tx, TaskDefinition def, Instant nextFireAt, String actor) {
        Map<String, Object> json = TaskDefinitionCodec.toJson(def);
        long id = tx.insert(
                        "INSERT INTO ax_task (name, version, definition, trigger_type, executor_group, fires_ahead, team, enabled,"
                                + " next_fire_at, created_at, created_by, updated_at, updated_by,"
                                + " retention_runs_ms, retention_failed_ms, retention_keep_last)"
                                + " VALUES (?, 1, ?, ?, ?, ?, ?, TRUE, ?, CURRENT_TIMESTAMP, ?, CURRENT_TIMESTAMP, ?, ?, ?, ?)",
                        def.taskName(),
                        Json.write(json),
                        def.trigger().type(),
                        def.group(),
                        def.admitsBySlotAlone(),
                        def.team(),
                        nextFireAt,
                        actor,
                        actor,
                        millis(def.policy().retention().runs()),
                        millis(def.policy().retention().failedRuns()),
                        def.policy().retention().keepLast())
                .orElseThrow();
        appendVersion(tx, id, def.taskName(), 1, "CREATE", def, json, JsonDiff.diff(Map.of(), json), actor);
        return findById(tx, id).orElseThrow();
    }

    /** A retention period as the column holds it (null: the server's default). */
    private static Long millis(Duration d) {
        return d == null ? null : d.toMillis();
    }

    /** Replaces the definition of a locked task; returns the new row. */
    public TaskRow update(Tx tx, TaskRow current, TaskDefinition def, Instant nextFireAt, String actor) {
        return update(tx, current, def, nextFireAt, actor, "UPDATE");
    }

    /** As above, with the change recorded in the audit log ({@code PROMOTE} when a canary becomes current). */
    public TaskRow update(Tx tx, TaskRow current, TaskDefinition def, Instant nextFireAt, String actor, String change) {
        Map<String, Object> before = TaskDefinitionCodec.toJson(current.definition());
        Map<String, Object> after = TaskDefinitionCodec.toJson(def);
        int version = nextVersion(tx, current);
        int n = tx.update(
                "UPDATE ax_task SET version = ?, definition = ?, trigger_type = ?, executor_group = ?, fires_ahead = ?,"
                        + " team = ?, next_fire_at = ?, updated_at = CURRENT_TIMESTAMP, updated_by = ?,"
                        + " retention_runs_ms = ?, retention_failed_ms = ?, retention_keep_last = ? WHERE id = ? AND version = ?",
                version,
                Json.write(after),
                def.trigger().type(),
                def.group(),
                def.admitsBySlotAlone(),
                def.team(),
                nextFireAt,
                actor,
                millis(def.policy().retention().runs()),
                millis(def.policy().retention().failedRuns()),
                def.policy().retention().keepLast(),
                current.id(),
                current.version());
        expectOne(n, current);
        appendVersion(
                tx, current.id(), current.name(), version, change, def, after, JsonDiff.diff(before, after), actor);
        return findById(tx, current.id()).orElseThrow();
    }

    /** Pauses or resumes a locked task. Resuming keeps {@code next_fire_at}: the misfire policy decides about the slots missed meanwhile. */
    public TaskRow setEnabled(Tx tx, TaskRow current, boolean enabled, String actor) {
        int version = nextVersion(tx, current);
        int n = tx.update(
                "UPDATE ax_task SET enabled = ?, version = ?, updated_at = CURRENT_TIMESTAMP, updated_by = ?"
                        + " WHERE id = ? AND version = ?",
                enabled,
                version,
                actor,
                current.id(),
                current.version());
        expectOne(n, current);
        Map<String, Object> json = TaskDefinitionCodec.toJson(current.definition());
        appendVersion(
                tx,
                current.id(),
                current.name(),
                version,
                enabled ? "RESUME" : "PAUSE",
                current.definition(),
                json,
                List.of(Map.of("path", "enabled", "from", !enabled, "to", enabled)),
                actor);
        return findById(tx, current.id()).orElseThrow();
    }

    public void delete(Tx tx, TaskRow current, String actor) {
        int n = tx.update("DELETE FROM ax_task WHERE id = ? AND version = ?", current.id(), current.version());
        expectOne(n, current);
        appendVersion(
                tx,
                current.id(),
                current.name(),
                nextVersion(tx, current),
                "DELETE",
                null,
                null,
                JsonDiff.diff(TaskDefinitionCodec.toJson(current.definition()), Map.of()),
                actor);
    }

    public List<TaskVersionRow> versions(Tx tx, String name, int limit) {
        // "change" in quotes: a reserved word in MariaDB and MySQL.
        return tx.query(
                "SELECT task_id, task_name, version, \"change\", definition, diff, actor, created_at FROM ax_task_version"
                        // Negative versions are test-run drafts (appendDraft): what a test ran, never a version of the
                        // task.
                        + " WHERE task_name = ? AND version > 0 ORDER BY task_id DESC, version DESC LIMIT ?",
                TaskStore::mapVersion,
                name,
                limit);
    }

    /**
     * Writes a canary definition as the next version of a locked task without making it current:
     * the task row keeps its definition and version (the stable one). Returns the canary's version.
     */
    public int appendCanary(Tx tx, TaskRow current, TaskDefinition canary, String actor) {
        Map<String, Object> after = TaskDefinitionCodec.toJson(canary);
        int version = nextVersion(tx, current);
        appendVersion(
                tx,
                current.id(),
                current.name(),
                version,
                "CANARY",
                canary,
                after,
                JsonDiff.diff(TaskDefinitionCodec.toJson(current.definition()), after),
                actor);
        return version;
    }

    /**
     * Stores the draft definition of a test run under a negative version of {@code taskId} (0 for a
     * task not saved yet), so the run records exactly what it ran and executors render it like any
     * version, while the task's history and version count stay as they were. Callers serialise
     * drafts of one task (the numbers are taken as one below the lowest).
     */
    public int appendDraft(Tx tx, long taskId, TaskDefinition draft, String actor) {
        int version = tx.queryOne(
                        "SELECT MIN(version) AS v FROM ax_task_version WHERE task_id = ?",
                        r -> r.nullableInt("v"),
                        taskId)
                .filter(v -> v != null && v < 0)
                .map(v -> v - 1)
                .orElse(-1);
        Map<String, Object> json = TaskDefinitionCodec.toJson(draft);
        appendVersion(tx, taskId, draft.taskName(), version, "TEST", draft, json, List.of(), actor);
        return version;
    }

    /**
     * The next version number of a task: one above both the row's and the history's, since a canary
     * writes a version to the history that the row does not take.
     */
    private static int nextVersion(Tx tx, TaskRow current) {
        int highest = tx.queryOne(
                        "SELECT MAX(version) AS v FROM ax_task_version WHERE task_id = ?",
                        r -> r.nullableInt("v"),
                        current.id())
                .filter(v -> v != null)
                .orElse(0);
        return Math.max(current.version(), highest) + 1;
    }

    /** The environment labels of a task version (empty: any executor). */
    public List<String> labels(Tx tx, long taskId, int version) {
        return tx.query(
                "SELECT label FROM ax_task_label WHERE task_id = ? AND version = ? ORDER BY label",
                r -> r.str("label"),
                taskId,
                version);
    }

    /**
     * The definition of one version: runs use the version they were created with, even after an
     * edit. Read once per version and node ({@link DefinitionCache}).
     */
    public Optional<TaskDefinition> definitionAt(Tx tx, long taskId, int version) {
        TaskDefinition known = definitions.get(taskId, version);
        if (known != null) {
            return Optional.of(known);
        }
        return tx.queryOne(
                        "SELECT definition FROM ax_task_version WHERE task_id = ? AND version = ?",
                        r -> r.str("definition"),
                        taskId,
                        version)
                .filter(text -> text != null)
                .map(text -> definitions.parse(tx, taskId, version, text));
    }

    /** {@link #definitionAt}, for a version a run or canary refers to, which must exist. */
    public TaskDefinition definition(Tx tx, long taskId, int version) {
        return definitionAt(tx, taskId, version)
                .orElseThrow(() -> new StoreException("no definition for task " + taskId + " version " + version));
    }

    // ---- firing -------------------------------------------------------------------------

    /**
     * Claims up to {@code limit} enabled tasks whose next slot is due by the database's clock.
     * The rows stay locked until the transaction ends; other nodes skip them (SKIP LOCKED) and
     * find them advanced afterwards.
     */
    public List<TaskRow> lockDue(Tx tx, int limit) {
        return lockDue(tx, limit, 0);
    }

    /**
     * As above, with the tasks that fire ahead ({@code fires_ahead}: {@link TaskDefinition#admitsBySlotAlone}) locked already {@code aheadMillis}
     * before their next slot.
     */
    public List<TaskRow> lockDue(Tx tx, int limit, long aheadMillis) {
        return tx.query(
                "SELECT " + COLUMNS + " FROM ax_task WHERE enabled = TRUE AND next_fire_at IS NOT NULL"
                        + " AND next_fire_at <= " + tx.dialect().plusMillis("CURRENT_TIMESTAMP")
                        + " AND (fires_ahead OR next_fire_at <= CURRENT_TIMESTAMP) ORDER BY next_fire_at LIMIT ?"
                        + tx.dialect().forUpdateSkipLocked(),
                r -> map(tx, r),
                aheadMillis,
                limit);
    }

    /** Moves a locked task's next slot forward; the version check guards against an edit that raced with firing. */
    public boolean advance(Tx tx, long id, int version, Instant nextFireAt) {
        return tx.update("UPDATE ax_task SET next_fire_at = ? WHERE id = ? AND version = ?", nextFireAt, id, version)
                == 1;
    }

    /** A locked task's next slot, as {@link #advance} takes it. */
    public record Advance(long id, int version, Instant nextFireAt) {}

    /**
     * {@link #advance} for many locked tasks; returns the ones that did not move, each edited since
     * it was locked. On PostgreSQL one statement (one array per column, so one text whatever the
     * count), where a JDBC batch still ran one statement per task: at 10,000 tasks due every second
     * that was 66,000 executions in a W1 run. Elsewhere one JDBC batch.
     */
    public List<Advance> advanceAll(Tx tx, List<Advance> tasks) {
        if (tasks.isEmpty()) {
            return List.of();
        }
        if (tx.dialect().writesInWith()) {
            Set<Long> moved = new HashSet<>(tx.query(
                    "UPDATE ax_task t SET next_fire_at = v.next FROM"
                            + " (SELECT * FROM unnest(CAST(? AS BIGINT[]), CAST(? AS INTEGER[]), CAST(CAST(? AS VARCHAR[]) AS TIMESTAMPTZ[])))"
                            + " AS v (id, version, next) WHERE t.id = v.id AND t.version = v.version RETURNING t.id",
                    r -> r.lng("id"),
                    tasks.stream().map(Advance::id).toArray(Long[]::new),
                    tasks.stream().map(Advance::version).toArray(Integer[]::new),
                    tasks.stream()
                            .map(a -> a.nextFireAt() == null
                                    ? null
                                    : a.nextFireAt().toString())
                            .toArray(String[]::new)));
            return tasks.stream().filter(a -> !moved.contains(a.id())).toList();
        }
        int[] counts = tx.batch(
                "UPDATE ax_task SET next_fire_at = ? WHERE id = ? AND version = ?",
                tasks.stream()
                        .map(a -> new Object[] {a.nextFireAt(), a.id(), a.version()})
                        .toList());
        List<Advance> stale = new ArrayList<>();
        for (int i = 0; i < tasks.size(); i++) {
            if (counts[i] != 1) {
                stale.add(tasks.get(i));
            }
        }
        return stale;
    }

    /** The earliest slot of any enabled task: when the firing loop should wake up next. */
    public Optional<Instant> earliestNextFire(Tx tx) {
        return earliestNextFire(tx, 0);
    }

    /**
     * When the firing loop should look again: the earliest next slot, {@code aheadMillis} early
     * for the tasks that fire ahead (database time).
     *
     * <p>Two probes of the due index, never a walk over it. The earliest task decides unless it is
     * due at its slot and a task that fires ahead is due less than {@code aheadMillis} after it:
     * the second probe reads only that stretch of the index. (Asking "earliest of each kind" walked
     * the whole index for a kind that had no task: at every wake-up, with 1,000 tasks due every
     * second, 7.8 ms on a new table and 60–80 ms once it had grown; 178 ms with 10,000.)
     */
    public Optional<Instant> earliestNextFire(Tx tx, long aheadMillis) {
        Optional<Slot> first = tx.queryOne(
                "SELECT next_fire_at, fires_ahead FROM ax_task WHERE enabled = TRUE"
                        + " AND next_fire_at IS NOT NULL ORDER BY next_fire_at LIMIT 1",
                r -> new Slot(r.instant("next_fire_at"), r.bool("fires_ahead")));
        if (first.isEmpty()) {
            return Optional.empty();
        }
        Instant at = first.get().at();
        if (first.get().firesAhead()) {
            return Optional.of(at.minusMillis(aheadMillis));
        }
        if (aheadMillis <= 0) {
            return Optional.of(at);
        }
        Optional<Instant> ahead = tx.queryOne(
                "SELECT MIN(next_fire_at) AS t FROM ax_task WHERE enabled = TRUE AND next_fire_at IS NOT NULL"
                        + " AND next_fire_at >= ? AND next_fire_at < ? AND fires_ahead",
                r -> r.instant("t"),
                at,
                at.plusMillis(aheadMillis));
        return Optional.of(ahead.map(t -> t.minusMillis(aheadMillis)).orElse(at)); // before at: t < at + aheadMillis
    }

    private record Slot(Instant at, boolean firesAhead) {}

    // ---- mapping ------------------------------------------------------------------------

    private void appendVersion(
            Tx tx,
            long taskId,
            String name,
            int version,
            String change,
            TaskDefinition definition,
            Map<String, Object> def,
            List<Map<String, Object>> diff,
            String actor) {
        String text = Json.write(def);
        tx.update(
                "INSERT INTO ax_task_version (task_id, version, task_name, \"change\", definition, diff, actor, created_at)"
                        + " VALUES (?, ?, ?, ?, ?, ?, ?, CURRENT_TIMESTAMP)",
                taskId,
                version,
                name,
                change,
                text,
                Json.write(diff),
                actor);
        if (definition != null) {
            definitions.remember(tx, taskId, version, definition, text);
        }
        // The claim query matches runs to executors by these rows (task, version): see RunStore#claim.
        if (def != null && def.get("environment") instanceof List<?> labels && !labels.isEmpty()) {
            tx.batch(
                    "INSERT INTO ax_task_label (task_id, version, label) VALUES (?, ?, ?)",
                    labels.stream()
                            .map(l -> new Object[] {taskId, version, String.valueOf(l)})
                            .toList());
        }
    }

    private static void expectOne(int n, TaskRow current) {
        if (n != 1) {
            throw new ConcurrentChangeException(
                    "task " + current.name() + " was changed concurrently (version " + current.version() + ")");
        }
    }

    static TaskDefinition parse(String json) {
        return TaskDefinitionCodec.parse(Json.readMap(json), Set.of()).definition();
    }

    private TaskRow map(Tx tx, Tx.Row r) throws SQLException {
        long id = r.lng("id");
        int version = r.integer("version");
        return new TaskRow(
                id,
                r.str("name"),
                version,
                definitions.parse(tx, id, version, r.str("definition")),
                r.bool("enabled"),
                r.instant("next_fire_at"),
                r.instant("created_at"),
                r.str("created_by"),
                r.instant("updated_at"),
                r.str("updated_by"),
                r.bool("canary"),
                r.bool("has_dependents"));
    }

    @SuppressWarnings("unchecked")
    private static TaskVersionRow mapVersion(Tx.Row r) throws SQLException {
        String def = r.str("definition");
        String diff = r.str("diff");
        List<Map<String, Object>> changes = diff == null
                ? List.of()
                : (List<Map<String, Object>>)
                        Json.readMap("{\"d\":" + diff + "}").get("d");
        return new TaskVersionRow(
                r.lng("task_id"),
                r.str("task_name"),
                r.integer("version"),
                r.str("change"),
                def == null ? null : Json.readMap(def),
                changes,
                r.str("actor"),
                r.instant("created_at"));
    }
}
