package dev.ax.alerts;

import dev.ax.domain.run.EventType;
import dev.ax.domain.run.InstanceState;
import dev.ax.store.Dialect;
import dev.ax.store.EventRow;
import dev.ax.store.Json;
import dev.ax.store.Tx;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The SQL of the alert pipeline: the tail's cursor over {@code ax_event} and the outbox
 * {@code ax_alert}. One row per alert per channel; the unique (channel, dedupe key) makes a second
 * insert of the same alert a no-op, whichever node or re-read of the event log attempts it.
 */
final class AlertStore {
    enum State { PENDING, SENT, FAILED, COLLAPSED }

    /** An alert to write, for one or more channels. */
    record NewAlert(AlertKind kind, String dedupeKey, Long taskId, String taskName, Long instanceId, AlertContent content) {
    }

    record AlertRow(long id, String channel, String dedupeKey, AlertKind kind, Long taskId, String taskName, Long instanceId,
                    AlertContent content, State state, int attempts, String lastError, Instant createdAt, Instant sentAt) {
    }

    /** Storm control looks at this much of a channel's recent alerts. */
    static final Duration STORM_WINDOW = Duration.ofMinutes(1);

    private static final String COLUMNS = "id, channel, dedupe_key, kind, task_id, task_name, instance_id, content, state,"
            + " attempts, last_error, created_at, sent_at";
    private static final String EVENT_COLUMNS = "id, instance_id, task_id, task_name, type, from_state, to_state, attempt,"
            + " actor, node_id, at, message, data";

    // ---- the tail's cursor ----------------------------------------------------------------

    /** The cursor, locked for this transaction; empty while another node holds it (it is tailing now). */
    Optional<Long> lockCursor(Tx tx) {
        return tx.queryOne("SELECT last_event_id FROM ax_alert_cursor WHERE id = 1" + tx.dialect().forUpdateSkipLocked(),
                r -> r.lng("last_event_id"));
    }

    void advanceCursor(Tx tx, long lastEventId) {
        if (tx.update("UPDATE ax_alert_cursor SET last_event_id = ?, updated_at = CURRENT_TIMESTAMP WHERE id = 1", lastEventId) != 1) {
            throw new IllegalStateException("the alert cursor row is missing (migration V20)");
        }
    }

    List<EventRow> eventsAfter(Tx tx, long afterId, int limit) {
        return tx.query("SELECT " + EVENT_COLUMNS + " FROM ax_event WHERE id > ? ORDER BY id LIMIT ?", AlertStore::event, afterId, limit);
    }

    // ---- the outbox -------------------------------------------------------------------------

    /**
     * Writes the alert for each channel that does not have it yet. A channel that got
     * {@code stormLimit} alerts within the last minute gets this one COLLAPSED into the minute's
     * summary instead (sent when the minute is over). Returns how many rows were written.
     */
    int enqueue(Tx tx, NewAlert a, List<String> channels, int stormLimit) {
        int written = 0;
        for (String channel : channels) {
            if (exists(tx, channel, a.dedupeKey())) {
                continue;
            }
            Long summaryId = null;
            State state = State.PENDING;
            if (a.kind() != AlertKind.STORM_SUMMARY && recentCount(tx, channel) >= stormLimit) {
                summaryId = stormSummary(tx, channel);
                state = State.COLLAPSED;
            }
            if (insert(tx, channel, a, state, summaryId, null)) {
                written++;
            }
        }
        return written;
    }

    private boolean exists(Tx tx, String channel, String key) {
        return tx.queryOne("SELECT 1 AS one FROM ax_alert WHERE channel = ? AND dedupe_key = ?", r -> 1, channel, key).isPresent();
    }

    private long recentCount(Tx tx, String channel) {
        return tx.queryOne("SELECT COUNT(*) AS n FROM ax_alert WHERE channel = ? AND kind <> 'STORM_SUMMARY' AND created_at > "
                + tx.dialect().plusMillis("CURRENT_TIMESTAMP"), r -> r.lng("n"), channel, -STORM_WINDOW.toMillis()).orElse(0L);
    }

    /** The summary row of this channel's current minute, created on first need; sent when the minute ends. */
    private long stormSummary(Tx tx, String channel) {
        Instant minute = tx.now().truncatedTo(ChronoUnit.MINUTES);
        String key = "storm:" + minute;
        AlertContent placeholder = new AlertContent(AlertKind.STORM_SUMMARY, "Alert storm on channel " + channel,
                Map.of(), List.of(), null, null, null);
        insert(tx, channel, new NewAlert(AlertKind.STORM_SUMMARY, key, null, null, null, placeholder), State.PENDING, null,
                minute.plus(STORM_WINDOW));
        return tx.queryOne("SELECT id FROM ax_alert WHERE channel = ? AND dedupe_key = ?", r -> r.lng("id"), channel, key).orElseThrow();
    }

    private boolean insert(Tx tx, String channel, NewAlert a, State state, Long summaryId, Instant nextAt) {
        String sql = "INSERT INTO ax_alert (channel, dedupe_key, kind, task_id, task_name, instance_id, content, state, attempts,"
                + " next_at, summary_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0, " + (nextAt == null ? "CURRENT_TIMESTAMP" : "?")
                + ", ?, CURRENT_TIMESTAMP)"
                + (tx.dialect() == Dialect.POSTGRES ? " ON CONFLICT (channel, dedupe_key) DO NOTHING" : "");
        List<Object> args = new java.util.ArrayList<>();
        args.add(channel);
        args.add(a.dedupeKey());
        args.add(a.kind());
        args.add(a.taskId());
        args.add(a.taskName());
        args.add(a.instanceId());
        args.add(Json.write(a.content().toMap()));
        args.add(state);
        if (nextAt != null) {
            args.add(nextAt);
        }
        args.add(summaryId);
        return tx.insertUnlessDuplicate(sql, args.toArray()).isPresent();
    }

    /**
     * Due PENDING alerts, claimed for {@code leaseMillis}: locked while claimed, then put off so
     * that other nodes leave them alone while this one sends outside any transaction. If this node
     * dies mid-send, the alert comes due again when the lease ends (sent at least once).
     */
    List<AlertRow> claimDue(Tx tx, int limit, long leaseMillis) {
        List<AlertRow> rows = tx.query("SELECT " + COLUMNS + " FROM ax_alert WHERE state = 'PENDING' AND next_at <= CURRENT_TIMESTAMP"
                + " ORDER BY next_at, id LIMIT ?" + tx.dialect().forUpdateSkipLocked(), AlertStore::alert, limit);
        for (AlertRow r : rows) {
            tx.update("UPDATE ax_alert SET next_at = " + tx.dialect().plusMillis("CURRENT_TIMESTAMP") + " WHERE id = ? AND state = 'PENDING'",
                    leaseMillis, r.id());
        }
        return rows;
    }

    boolean markSent(Tx tx, long id, String detail) {
        return tx.update("UPDATE ax_alert SET state = 'SENT', attempts = attempts + 1, sent_at = CURRENT_TIMESTAMP, last_error = NULL"
                + " WHERE id = ? AND state = 'PENDING'", id) == 1;
    }

    boolean markRetry(Tx tx, long id, long delayMillis, String error) {
        return tx.update("UPDATE ax_alert SET attempts = attempts + 1, last_error = ?, next_at = "
                + tx.dialect().plusMillis("CURRENT_TIMESTAMP") + " WHERE id = ? AND state = 'PENDING'", error, delayMillis, id) == 1;
    }

    boolean markFailed(Tx tx, long id, String error) {
        return tx.update("UPDATE ax_alert SET state = 'FAILED', attempts = attempts + 1, last_error = ? WHERE id = ? AND state = 'PENDING'",
                error, id) == 1;
    }

    /** The alerts a storm summary stands for, oldest first. */
    List<AlertRow> collapsedInto(Tx tx, long summaryId, int limit) {
        return tx.query("SELECT " + COLUMNS + " FROM ax_alert WHERE summary_id = ? ORDER BY id LIMIT ?", AlertStore::alert, summaryId, limit);
    }

    long countCollapsedInto(Tx tx, long summaryId) {
        return tx.queryOne("SELECT COUNT(*) AS n FROM ax_alert WHERE summary_id = ?", r -> r.lng("n"), summaryId).orElse(0L);
    }

    Map<String, Long> pendingByChannel(Tx tx) {
        Map<String, Long> out = new LinkedHashMap<>();
        tx.query("SELECT channel, COUNT(*) AS n FROM ax_alert WHERE state = 'PENDING' GROUP BY channel", r -> {
            out.put(r.str("channel"), r.lng("n"));
            return null;
        });
        return out;
    }

    /** The newest alerts, for tests and operators. */
    List<AlertRow> recent(Tx tx, int limit) {
        return tx.query("SELECT " + COLUMNS + " FROM ax_alert ORDER BY id DESC LIMIT ?", AlertStore::alert, limit);
    }

    private static AlertRow alert(Tx.Row r) throws SQLException {
        return new AlertRow(r.lng("id"), r.str("channel"), r.str("dedupe_key"), r.enumOf(AlertKind.class, "kind"),
                r.nullableLong("task_id"), r.str("task_name"), r.nullableLong("instance_id"),
                AlertContent.fromMap(Json.readMap(r.str("content"))), r.enumOf(State.class, "state"), r.integer("attempts"),
                r.str("last_error"), r.instant("created_at"), r.instant("sent_at"));
    }

    private static EventRow event(Tx.Row r) throws SQLException {
        String data = r.str("data");
        return new EventRow(r.lng("id"), r.nullableLong("instance_id"), r.nullableLong("task_id"), r.str("task_name"),
                r.enumOf(EventType.class, "type"), r.enumOf(InstanceState.class, "from_state"), r.enumOf(InstanceState.class, "to_state"),
                r.nullableInt("attempt"), r.str("actor"), r.str("node_id"), r.instant("at"), r.str("message"),
                data == null ? Map.of() : Json.readMap(data));
    }
}
