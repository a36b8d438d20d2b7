package dev.ax.store;

import dev.ax.domain.alert.AlertState;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The alerting side's own tables (migration V20): the tail's cursor over {@code ax_event}, the
 * outbox {@code ax_alert}, and the marks that make "once" hold across nodes — {@code ax_anomaly}
 * (each finding reported once) and {@code ax_watch_check} (each check flips once per episode).
 * SQL only: what an alert says, and when alerts collapse into a storm summary, is decided in
 * ax-alerts.
 */
public final class AlertStore {
    /** An alert to write for one channel; {@code kind} is the alert kind's name, {@code content} its JSON form. */
    public record NewRow(
            String channel,
            String dedupeKey,
            String kind,
            Long taskId,
            String taskName,
            Long instanceId,
            Map<String, Object> content,
            AlertState state,
            Long summaryId,
            Instant nextAt) {}

    public record Row(
            long id,
            String channel,
            String dedupeKey,
            String kind,
            Long taskId,
            String taskName,
            Long instanceId,
            Map<String, Object> content,
            AlertState state,
            int attempts,
            String lastError,
            Instant createdAt,
            Instant sentAt) {}

    /** The state of a watchdog check. */
    public record CheckState(boolean failing, Instant since) {}

    private static final String COLUMNS =
            "id, channel, dedupe_key, kind, task_id, task_name, instance_id, content, state,"
                    + " attempts, last_error, created_at, sent_at";

    // ---- the tail's cursor ----------------------------------------------------------------

    /** The cursor, locked for this transaction; empty while another node holds it (it is tailing now). */
    public Optional<Long> lockCursor(Tx tx) {
        return tx.queryOne(
                "SELECT last_event_id FROM ax_alert_cursor WHERE id = 1"
                        + tx.dialect().forUpdateSkipLocked(),
                r -> r.lng("last_event_id"));
    }

    public void advanceCursor(Tx tx, long lastEventId) {
        if (tx.update(
                        "UPDATE ax_alert_cursor SET last_event_id = ?, updated_at = CURRENT_TIMESTAMP WHERE id = 1",
                        lastEventId)
                != 1) {
            throw new IllegalStateException("the alert cursor row is missing (migration V20)");
        }
    }

    // ---- the outbox -------------------------------------------------------------------------

    public boolean exists(Tx tx, String channel, String dedupeKey) {
        return tx.queryOne(
                        "SELECT 1 AS one FROM ax_alert WHERE channel = ? AND dedupe_key = ?",
                        r -> 1,
                        channel,
                        dedupeKey)
                .isPresent();
    }

    /** How many alerts other than storm summaries the channel got within the last {@code windowMillis}. */
    public long recentCount(Tx tx, String channel, String summaryKind, long windowMillis) {
        return tx.queryOne(
                        "SELECT COUNT(*) AS n FROM ax_alert WHERE channel = ? AND kind <> ? AND created_at > "
                                + tx.dialect().plusMillis("CURRENT_TIMESTAMP"),
                        r -> r.lng("n"),
                        channel,
                        summaryKind,
                        -windowMillis)
                .orElse(0L);
    }

    public Optional<Long> idOf(Tx tx, String channel, String dedupeKey) {
        return tx.queryOne(
                "SELECT id FROM ax_alert WHERE channel = ? AND dedupe_key = ?", r -> r.lng("id"), channel, dedupeKey);
    }

    /**
     * Writes the row unless the channel has an alert of that dedupe key already (whichever node or
     * re-read of the event log tried first); true if this call wrote it. Due now unless {@code nextAt}.
     */
    public boolean insert(Tx tx, NewRow a) {
        AlertState.MACHINE.checkInitial(a.state());
        String sql =
                "INSERT INTO ax_alert (channel, dedupe_key, kind, task_id, task_name, instance_id, content, state, attempts,"
                        + " next_at, summary_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0, "
                        + (a.nextAt() == null ? "CURRENT_TIMESTAMP" : "?")
                        + ", ?, CURRENT_TIMESTAMP)"
                        + tx.dialect().onConflictDoNothing("channel, dedupe_key");
        List<Object> args = new ArrayList<>(List.of(a.channel(), a.dedupeKey(), a.kind()));
        args.add(a.taskId());
        args.add(a.taskName());
        args.add(a.instanceId());
        args.add(Json.write(a.content()));
        args.add(a.state());
        if (a.nextAt() != null) {
            args.add(a.nextAt());
        }
        args.add(a.summaryId());
        return tx.insertUnlessDuplicate(sql, args.toArray()).isPresent();
    }

    /**
     * Due PENDING alerts, claimed for {@code leaseMillis}: locked while claimed, then put off so
     * that other nodes leave them alone while this one sends outside any transaction. If this node
     * dies mid-send, the alert comes due again when the lease ends (sent at least once).
     */
    public List<Row> claimDue(Tx tx, int limit, long leaseMillis) {
        List<Row> rows = tx.query(
                "SELECT " + COLUMNS + " FROM ax_alert WHERE state = 'PENDING' AND next_at <= CURRENT_TIMESTAMP"
                        + " ORDER BY next_at, id LIMIT ?" + tx.dialect().forUpdateSkipLocked(),
                AlertStore::row,
                limit);
        for (Row r : rows) {
            tx.update(
                    "UPDATE ax_alert SET next_at = " + tx.dialect().plusMillis("CURRENT_TIMESTAMP")
                            + " WHERE id = ? AND state = 'PENDING'",
                    leaseMillis,
                    r.id());
        }
        return rows;
    }

    public boolean markSent(Tx tx, long id) {
        AlertState.MACHINE.check(AlertState.PENDING, AlertState.SENT);
        return tx.update(
                        "UPDATE ax_alert SET state = 'SENT', attempts = attempts + 1, sent_at = CURRENT_TIMESTAMP, last_error = NULL"
                                + " WHERE id = ? AND state = 'PENDING'",
                        id)
                == 1;
    }

    public boolean markRetry(Tx tx, long id, long delayMillis, String error) {
        return tx.update(
                        "UPDATE ax_alert SET attempts = attempts + 1, last_error = ?, next_at = "
                                + tx.dialect().plusMillis("CURRENT_TIMESTAMP") + " WHERE id = ? AND state = 'PENDING'",
                        error,
                        delayMillis,
                        id)
                == 1;
    }

    public boolean markFailed(Tx tx, long id, String error) {
        AlertState.MACHINE.check(AlertState.PENDING, AlertState.FAILED);
        return tx.update(
                        "UPDATE ax_alert SET state = 'FAILED', attempts = attempts + 1, last_error = ? WHERE id = ? AND state = 'PENDING'",
                        error,
                        id)
                == 1;
    }

    /** The alerts a storm summary stands for, oldest first. */
    public List<Row> collapsedInto(Tx tx, long summaryId, int limit) {
        return tx.query(
                "SELECT " + COLUMNS + " FROM ax_alert WHERE summary_id = ? ORDER BY id LIMIT ?",
                AlertStore::row,
                summaryId,
                limit);
    }

    public long countCollapsedInto(Tx tx, long summaryId) {
        return tx.queryOne("SELECT COUNT(*) AS n FROM ax_alert WHERE summary_id = ?", r -> r.lng("n"), summaryId)
                .orElse(0L);
    }

    public Map<String, Long> pendingByChannel(Tx tx) {
        Map<String, Long> out = new LinkedHashMap<>();
        tx.query("SELECT channel, COUNT(*) AS n FROM ax_alert WHERE state = 'PENDING' GROUP BY channel", r -> {
            out.put(r.str("channel"), r.lng("n"));
            return null;
        });
        return out;
    }

    /** The newest alerts, for tests and operators. */
    public List<Row> recent(Tx tx, int limit) {
        return tx.query("SELECT " + COLUMNS + " FROM ax_alert ORDER BY id DESC LIMIT ?", AlertStore::row, limit);
    }

    /**
     * Deletes sent or given-up alerts and anomaly marks older than {@code before}: pending alerts stay
     * whatever their age. Returns how many rows went.
     */
    public int deleteOlderThan(Tx tx, Instant before) {
        return tx.update("DELETE FROM ax_alert WHERE state <> 'PENDING' AND created_at < ?", before)
                + tx.update("DELETE FROM ax_anomaly WHERE seen_at < ?", before);
    }

    // ---- the marks ------------------------------------------------------------------------

    /** True if this node is the first to see the anomaly (and so reports it). */
    public boolean firstSighting(Tx tx, String key, String kind, Long taskId, String detail) {
        return tx.updateUnlessDuplicate(
                        "INSERT INTO ax_anomaly (anomaly_key, kind, task_id, detail, seen_at) VALUES (?, ?, ?, ?, CURRENT_TIMESTAMP)"
                                + tx.dialect().onConflictDoNothing("anomaly_key"),
                        key,
                        kind,
                        taskId,
                        detail)
                == 1;
    }

    public Optional<CheckState> check(Tx tx, String key) {
        return tx.queryOne(
                "SELECT failing, since FROM ax_watch_check WHERE check_key = ?",
                r -> new CheckState(r.bool("failing"), r.instant("since")),
                key);
    }

    /**
     * Moves a check to {@code failing}; true if this call made the change (so its caller alerts).
     * Conditional on the state seen, so of two nodes flipping it at once exactly one wins.
     */
    public boolean flip(Tx tx, String key, boolean failing, String detail, String nodeId) {
        Optional<CheckState> now = check(tx, key);
        if (now.isEmpty()) {
            if (!failing) {
                return false;
            }
            return tx.updateUnlessDuplicate(
                            "INSERT INTO ax_watch_check (check_key, failing, since, detail, node_id, updated_at)"
                                    + " VALUES (?, TRUE, CURRENT_TIMESTAMP, ?, ?, CURRENT_TIMESTAMP)"
                                    + tx.dialect().onConflictDoNothing("check_key"),
                            key,
                            detail,
                            nodeId)
                    == 1;
        }
        if (now.get().failing() == failing) {
            if (failing) {
                tx.update(
                        "UPDATE ax_watch_check SET detail = ?, updated_at = CURRENT_TIMESTAMP WHERE check_key = ?",
                        detail,
                        key);
            }
            return false;
        }
        return tx.update(
                        "UPDATE ax_watch_check SET failing = ?, since = CURRENT_TIMESTAMP, detail = ?, node_id = ?,"
                                + " updated_at = CURRENT_TIMESTAMP WHERE check_key = ? AND failing = ?",
                        failing,
                        detail,
                        nodeId,
                        key,
                        !failing)
                == 1;
    }

    private static Row row(Tx.Row r) throws SQLException {
        return new Row(
                r.lng("id"),
                r.str("channel"),
                r.str("dedupe_key"),
                r.str("kind"),
                r.nullableLong("task_id"),
                r.str("task_name"),
                r.nullableLong("instance_id"),
                Json.readMap(r.str("content")),
                r.enumOf(AlertState.class, "state"),
                r.integer("attempts"),
                r.str("last_error"),
                r.instant("created_at"),
                r.instant("sent_at"));
    }
}
