package dev.ax.alerts;

import dev.ax.domain.alert.AlertState;
import dev.ax.store.AlertStore;
import dev.ax.store.Tx;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The outbox as the alerting side sees it: typed alerts over {@link AlertStore}'s rows, and storm
 * control. One row per alert per channel; the store's unique (channel, dedupe key) makes a second
 * write of the same alert a no-op, whichever node or re-read of the event log attempts it. What needs
 * no typed row (marking an alert sent, counting) callers ask {@link AlertStore} for directly.
 */
final class Outbox {
    /**
     * What an alert says in a given language: composed once per language among its channels, from facts read once (the
     * log tail, the trigger chain), so each channel gets it in its own words.
     */
    @FunctionalInterface
    interface Localized {
        AlertContent in(AlertWords words);
    }

    /** An alert to write, for one or more channels. */
    record NewAlert(
            AlertKind kind, String dedupeKey, Long taskId, String taskName, Long instanceId, Localized content) {}

    record AlertRow(
            long id,
            String channel,
            String dedupeKey,
            AlertKind kind,
            Long taskId,
            String taskName,
            Long instanceId,
            AlertContent content,
            AlertState state,
            int attempts,
            String lastError,
            Instant createdAt,
            Instant sentAt) {
        static AlertRow of(AlertStore.Row r) {
            return new AlertRow(
                    r.id(),
                    r.channel(),
                    r.dedupeKey(),
                    AlertKind.valueOf(r.kind()),
                    r.taskId(),
                    r.taskName(),
                    r.instanceId(),
                    AlertContent.fromMap(r.content()),
                    r.state(),
                    r.attempts(),
                    r.lastError(),
                    r.createdAt(),
                    r.sentAt());
        }
    }

    /** Storm control looks at this much of a channel's recent alerts. */
    static final Duration STORM_WINDOW = Duration.ofMinutes(1);

    private final AlertStore rows;

    Outbox(AlertStore rows) {
        this.rows = rows;
    }

    /**
     * Writes the alert for each channel that does not have it yet. A channel that got
     * {@code stormLimit} alerts within the last minute gets this one COLLAPSED into the minute's
     * summary instead (sent when the minute is over). Returns how many rows were written.
     */
    int enqueue(Tx tx, NewAlert a, List<String> channels, int stormLimit, Function<String, AlertWords> wordsOf) {
        int written = 0;
        Map<AlertWords, AlertContent> composed = new HashMap<>();
        for (String channel : channels) {
            if (rows.exists(tx, channel, a.dedupeKey())) {
                continue;
            }
            AlertWords words = wordsOf.apply(channel);
            AlertContent content =
                    composed.computeIfAbsent(words, w -> a.content().in(w));
            Long summaryId = null;
            AlertState state = AlertState.PENDING;
            if (a.kind() != AlertKind.STORM_SUMMARY
                    && rows.recentCount(tx, channel, AlertKind.STORM_SUMMARY.name(), STORM_WINDOW.toMillis())
                            >= stormLimit) {
                summaryId = stormSummary(tx, channel, words);
                state = AlertState.COLLAPSED;
            }
            if (rows.insert(tx, row(channel, a, content, state, summaryId, null))) {
                written++;
            }
        }
        return written;
    }

    /**
     * The summary row of this channel's current minute, created on first need; sent when the minute ends, when the
     * delivery writes what it stands for.
     */
    private long stormSummary(Tx tx, String channel, AlertWords words) {
        Instant minute = tx.now().truncatedTo(ChronoUnit.MINUTES);
        String key = "storm:" + minute;
        AlertContent placeholder = new AlertContent(
                AlertKind.STORM_SUMMARY,
                words.text("storm.placeholder", channel),
                Map.of(),
                List.of(),
                null,
                null,
                null,
                words.locale());
        rows.insert(
                tx,
                row(
                        channel,
                        new NewAlert(AlertKind.STORM_SUMMARY, key, null, null, null, w -> placeholder),
                        placeholder,
                        AlertState.PENDING,
                        null,
                        minute.plus(STORM_WINDOW)));
        return rows.idOf(tx, channel, key).orElseThrow();
    }

    private static AlertStore.NewRow row(
            String channel, NewAlert a, AlertContent content, AlertState state, Long summaryId, Instant nextAt) {
        return new AlertStore.NewRow(
                channel,
                a.dedupeKey(),
                a.kind().name(),
                a.taskId(),
                a.taskName(),
                a.instanceId(),
                content.toMap(),
                state,
                summaryId,
                nextAt);
    }

    List<AlertRow> claimDue(Tx tx, int limit, long leaseMillis) {
        return rows.claimDue(tx, limit, leaseMillis).stream().map(AlertRow::of).toList();
    }

    /** The alerts a storm summary stands for, oldest first. */
    List<AlertRow> collapsedInto(Tx tx, long summaryId, int limit) {
        return rows.collapsedInto(tx, summaryId, limit).stream()
                .map(AlertRow::of)
                .toList();
    }

    /** The newest alerts, for tests and operators. */
    List<AlertRow> recent(Tx tx, int limit) {
        return rows.recent(tx, limit).stream().map(AlertRow::of).toList();
    }
}
