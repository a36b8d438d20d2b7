package dev.ax.alerts;

import dev.ax.store.Dialect;
import dev.ax.store.Tx;
import java.time.Instant;
import java.util.Optional;

/**
 * The small tables that make "once" hold across nodes: {@code ax_anomaly} (each anomaly is
 * reported once) and {@code ax_watch_check} (each check flips failing/healthy once per episode).
 */
final class Marks {
    /** The state of a watchdog check. */
    record CheckState(boolean failing, Instant since) {
    }

    /** True if this node is the first to see the anomaly (and so reports it). */
    boolean firstSighting(Tx tx, String key, String kind, Long taskId, String detail) {
        if (tx.dialect() == Dialect.POSTGRES) {
            return tx.update("INSERT INTO ax_anomaly (anomaly_key, kind, task_id, detail, seen_at) VALUES (?, ?, ?, ?, CURRENT_TIMESTAMP)"
                    + " ON CONFLICT (anomaly_key) DO NOTHING", key, kind, taskId, detail) == 1;
        }
        // The embedded H2 database is single-node and anomalies are checked by one thread: look, then insert.
        if (tx.queryOne("SELECT 1 AS one FROM ax_anomaly WHERE anomaly_key = ?", r -> 1, key).isPresent()) {
            return false;
        }
        return tx.update("INSERT INTO ax_anomaly (anomaly_key, kind, task_id, detail, seen_at) VALUES (?, ?, ?, ?, CURRENT_TIMESTAMP)",
                key, kind, taskId, detail) == 1;
    }

    Optional<CheckState> check(Tx tx, String key) {
        return tx.queryOne("SELECT failing, since FROM ax_watch_check WHERE check_key = ?",
                r -> new CheckState(r.bool("failing"), r.instant("since")), key);
    }

    /**
     * Moves a check to {@code failing}; true if this call made the change (so its caller alerts).
     * Conditional on the state seen, so of two nodes flipping it at once exactly one wins.
     */
    boolean flip(Tx tx, String key, boolean failing, String detail, String nodeId) {
        Optional<CheckState> now = check(tx, key);
        if (now.isEmpty()) {
            if (!failing) {
                return false;
            }
            if (tx.dialect() == Dialect.POSTGRES) {
                return tx.update("INSERT INTO ax_watch_check (check_key, failing, since, detail, node_id, updated_at)"
                        + " VALUES (?, TRUE, CURRENT_TIMESTAMP, ?, ?, CURRENT_TIMESTAMP) ON CONFLICT (check_key) DO NOTHING",
                        key, detail, nodeId) == 1;
            }
            return tx.update("INSERT INTO ax_watch_check (check_key, failing, since, detail, node_id, updated_at)"
                    + " VALUES (?, TRUE, CURRENT_TIMESTAMP, ?, ?, CURRENT_TIMESTAMP)", key, detail, nodeId) == 1;
        }
        if (now.get().failing() == failing) {
            if (failing) {
                tx.update("UPDATE ax_watch_check SET detail = ?, updated_at = CURRENT_TIMESTAMP WHERE check_key = ?", detail, key);
            }
            return false;
        }
        return tx.update("UPDATE ax_watch_check SET failing = ?, since = CURRENT_TIMESTAMP, detail = ?, node_id = ?,"
                + " updated_at = CURRENT_TIMESTAMP WHERE check_key = ? AND failing = ?", failing, detail, nodeId, key, !failing) == 1;
    }
}
