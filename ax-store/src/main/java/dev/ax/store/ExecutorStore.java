package dev.ax.store;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/** Executors that registered, their groups, and when each was last heard from. */
public final class ExecutorStore {

    /** Records an executor (re)starting; returns true when its session changed (a restart, not a reconnect). */
    public boolean register(
            Tx tx, String id, String session, List<String> groups, String host, long pid, String version) {
        String previous = tx.queryOne(
                        "SELECT session FROM ax_executor WHERE id = ? FOR UPDATE", r -> r.str("session"), id)
                .orElse(null);
        if (previous == null) {
            tx.update(
                    "INSERT INTO ax_executor (id, session, host, pid, version, started_at, last_seen_at)"
                            + " VALUES (?, ?, ?, ?, ?, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)",
                    id,
                    session,
                    host,
                    pid,
                    version);
        } else {
            tx.update(
                    "UPDATE ax_executor SET session = ?, host = ?, pid = ?, version = ?, started_at = CASE WHEN session = ?"
                            + " THEN started_at ELSE CURRENT_TIMESTAMP END, last_seen_at = CURRENT_TIMESTAMP WHERE id = ?",
                    session,
                    host,
                    pid,
                    version,
                    session,
                    id);
        }
        tx.update("DELETE FROM ax_executor_group WHERE executor_id = ?", id);
        List<Object[]> rows = new ArrayList<>();
        for (String g : groups) {
            rows.add(new Object[] {id, g});
        }
        tx.batch("INSERT INTO ax_executor_group (executor_id, group_name) VALUES (?, ?)", rows);
        return previous != null && !previous.equals(session);
    }

    /** Notes the token an executor id registered with. */
    public void bind(Tx tx, String id, String tokenName) {
        tx.update("UPDATE ax_executor SET token_name = ? WHERE id = ?", tokenName, id);
    }

    /** The token an executor id last registered with; empty when it never registered (or before V38). */
    public Optional<String> tokenOf(Tx tx, String id) {
        return tx.queryOne("SELECT token_name FROM ax_executor WHERE id = ?", r -> r.str("token_name"), id)
                .filter(Objects::nonNull);
    }

    /** Replaces the environment labels of an executor (sent when it registers). */
    public void setLabels(Tx tx, String id, List<String> labels) {
        tx.update("DELETE FROM ax_executor_label WHERE executor_id = ?", id);
        tx.batch(
                "INSERT INTO ax_executor_label (executor_id, label) VALUES (?, ?)",
                labels.stream().distinct().map(l -> new Object[] {id, l}).toList());
    }

    /** The labels an executor registered with; empty when it has none (it then runs only tasks without environment). */
    public List<String> labels(Tx tx, String id) {
        return tx.query(
                "SELECT label FROM ax_executor_label WHERE executor_id = ? ORDER BY label", r -> r.str("label"), id);
    }

    /** Labels of every executor, by executor id. */
    public Map<String, List<String>> allLabels(Tx tx) {
        Map<String, List<String>> out = new LinkedHashMap<>();
        tx.query("SELECT executor_id, label FROM ax_executor_label ORDER BY executor_id, label", r -> {
            out.computeIfAbsent(r.str("executor_id"), k -> new ArrayList<>()).add(r.str("label"));
            return null;
        });
        return out;
    }

    /** True if an executor serving {@code group} and carrying all {@code labels} was heard from within {@code aliveMillis}. */
    public boolean liveExecutorWithLabels(Tx tx, String group, List<String> labels, long aliveMillis) {
        StringBuilder sql =
                new StringBuilder("SELECT 1 AS one FROM ax_executor e JOIN ax_executor_group g ON g.executor_id = e.id"
                        + " WHERE g.group_name = ? AND e.last_seen_at >= "
                        + tx.dialect().plusMillis("CURRENT_TIMESTAMP"));
        List<Object> args = new ArrayList<>(List.of(group, -aliveMillis));
        for (String label : labels) {
            sql.append(" AND EXISTS (SELECT 1 FROM ax_executor_label l WHERE l.executor_id = e.id AND l.label = ?)");
            args.add(label);
        }
        return tx.queryOne(sql + " LIMIT 1", r -> 1, args.toArray()).isPresent();
    }

    public void seen(Tx tx, String id) {
        tx.update("UPDATE ax_executor SET last_seen_at = CURRENT_TIMESTAMP WHERE id = ?", id);
    }

    /** Executors heard from within {@code aliveMillis} by the database's clock. */
    public List<ExecutorRow> live(Tx tx, long aliveMillis) {
        return withGroups(
                tx,
                tx.query(
                        "SELECT id, session, host, pid, version, started_at, last_seen_at FROM ax_executor"
                                + " WHERE last_seen_at >= " + tx.dialect().plusMillis("CURRENT_TIMESTAMP")
                                + " ORDER BY id",
                        ExecutorStore::map,
                        -aliveMillis));
    }

    public List<ExecutorRow> all(Tx tx) {
        return withGroups(
                tx,
                tx.query(
                        "SELECT id, session, host, pid, version, started_at, last_seen_at FROM ax_executor ORDER BY id",
                        ExecutorStore::map));
    }

    /** True if some executor serving {@code group} was heard from within {@code aliveMillis}. */
    public boolean groupHasLiveExecutor(Tx tx, String group, long aliveMillis) {
        return tx.queryOne(
                        "SELECT 1 AS one FROM ax_executor e JOIN ax_executor_group g ON g.executor_id = e.id"
                                + " WHERE g.group_name = ? AND e.last_seen_at >= "
                                + tx.dialect().plusMillis("CURRENT_TIMESTAMP")
                                + " LIMIT 1",
                        r -> 1,
                        group,
                        -aliveMillis)
                .isPresent();
    }

    /** Ids of the executors serving {@code group} heard from within {@code aliveMillis}, by the database's clock. */
    public List<String> liveInGroup(Tx tx, String group, long aliveMillis) {
        return tx.query(
                "SELECT e.id FROM ax_executor e JOIN ax_executor_group g ON g.executor_id = e.id"
                        + " WHERE g.group_name = ? AND e.last_seen_at >= "
                        + tx.dialect().plusMillis("CURRENT_TIMESTAMP") + " ORDER BY e.id",
                r -> r.str("id"),
                group,
                -aliveMillis);
    }

    private static List<ExecutorRow> withGroups(Tx tx, List<ExecutorRow> rows) {
        if (rows.isEmpty()) {
            return rows;
        }
        Map<String, List<String>> groups = new LinkedHashMap<>();
        tx.query("SELECT executor_id, group_name FROM ax_executor_group ORDER BY group_name", r -> {
            groups.computeIfAbsent(r.str("executor_id"), k -> new ArrayList<>()).add(r.str("group_name"));
            return null;
        });
        List<ExecutorRow> out = new ArrayList<>();
        for (ExecutorRow e : rows) {
            out.add(new ExecutorRow(
                    e.id(),
                    e.session(),
                    List.copyOf(groups.getOrDefault(e.id(), List.of())),
                    e.host(),
                    e.pid(),
                    e.version(),
                    e.startedAt(),
                    e.lastSeenAt()));
        }
        return out;
    }

    private static ExecutorRow map(Tx.Row r) throws SQLException {
        return new ExecutorRow(
                r.str("id"),
                r.str("session"),
                List.of(),
                r.str("host"),
                r.nullableLong("pid"),
                r.str("version"),
                r.instant("started_at"),
                r.instant("last_seen_at"));
    }
}
