package dev.ax.alerts;

import dev.ax.domain.run.EventType;
import dev.ax.store.NewEvent;
import dev.ax.store.Store;
import dev.ax.store.Tx;
import dev.ax.store.read.RunHistoryReads;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The delivery loop: claims due PENDING alerts with a lease (a short transaction), sends each
 * outside any transaction, then records the outcome and its event (ALERT_SENT / ALERT_FAILED) on
 * the run or task the alert is about. A failed send is retried with growing waits and given up
 * after {@code pipeline.maxAttempts}; nothing else waits for it.
 */
final class Deliveries {
    private static final Logger LOG = LoggerFactory.getLogger(Deliveries.class);
    static final int BATCH = 10;
    /** Longer than a batch of sends that all time out, so a claim never runs out mid-batch. */
    static final long LEASE_MILLIS = Duration.ofMinutes(5).toMillis();

    static final Duration MAX_RETRY = Duration.ofMinutes(30);
    /** A storm summary lists this many of the alerts it stands for. */
    static final int SUMMARY_LINES = 20;

    private final AlertsContext ctx;

    Deliveries(AlertsContext ctx) {
        this.ctx = ctx;
    }

    /** Sends what is due; returns how many alerts were delivered. */
    int tick() {
        Store store = ctx.store();
        List<Outbox.AlertRow> due = store.tx(tx -> ctx.outbox().claimDue(tx, BATCH, LEASE_MILLIS));
        int sent = 0;
        for (Outbox.AlertRow row : due) {
            sent += deliver(row) ? 1 : 0;
        }
        return sent;
    }

    private boolean deliver(Outbox.AlertRow row) {
        Store store = ctx.store();
        var channel = ctx.channels().get(row.channel());
        if (channel.isEmpty()) {
            store.tx(tx -> {
                if (ctx.store()
                        .alerts()
                        .markFailed(tx, row.id(), "channel '" + row.channel() + "' is not configured on this server")) {
                    note(
                            tx,
                            row,
                            EventType.ALERT_FAILED,
                            "alert not sent: channel '" + row.channel() + "' is not configured");
                }
                return null;
            });
            return false;
        }
        // Masked again as it leaves: an alert queued before a secret was set may quote it.
        AlertContent content = (row.kind() == AlertKind.STORM_SUMMARY
                        ? store.tx(tx -> summary(tx, row))
                        : row.content())
                .masked(ctx.mask());
        Channel.SendResult result =
                channel.get().send(new Channel.Outgoing(row.id(), row.channel(), row.dedupeKey(), content));
        ctx.channels()
                .record(row.channel(), result, ctx.node().context().clock().now());
        ctx.metrics().delivered(row.channel(), result.ok());
        int attempt = row.attempts() + 1;
        return store.tx(tx -> {
            if (result.ok()) {
                if (ctx.store().alerts().markSent(tx, row.id())) {
                    note(tx, row, EventType.ALERT_SENT, "alert sent to " + row.channel() + ": " + content.title());
                }
                return true;
            }
            if (attempt >= ctx.config().pipeline().maxAttempts()) {
                if (ctx.store().alerts().markFailed(tx, row.id(), result.detail())) {
                    note(
                            tx,
                            row,
                            EventType.ALERT_FAILED,
                            "alert to " + row.channel() + " given up after " + attempt + " attempts: "
                                    + result.detail());
                }
                LOG.warn(
                        "alert {} to channel {} given up after {} attempts: {}",
                        row.id(),
                        row.channel(),
                        attempt,
                        result.detail());
                return false;
            }
            Duration wait = backoff(ctx.config().pipeline().firstRetry(), attempt);
            if (ctx.store().alerts().markRetry(tx, row.id(), wait.toMillis(), result.detail())) {
                note(
                        tx,
                        row,
                        EventType.ALERT_FAILED,
                        "alert to " + row.channel() + " failed (attempt " + attempt + " of "
                                + ctx.config().pipeline().maxAttempts() + "), next try in " + RunAlerts.human(wait)
                                + ": " + result.detail());
            }
            return false;
        });
    }

    /** {@code first}, then three times longer each time (15 s, 45 s, 2m15s, ...), at most 30 min. */
    static Duration backoff(Duration first, int attempt) {
        long millis = first.toMillis();
        for (int i = 1; i < attempt && millis < MAX_RETRY.toMillis(); i++) {
            millis *= 3;
        }
        return Duration.ofMillis(Math.min(millis, MAX_RETRY.toMillis()));
    }

    /** Sends one alert now, outside the outbox (the watchdog, when the database is gone), in the channel's words. */
    Channel.SendResult sendNow(String channelName, String dedupeKey, Outbox.Localized content) {
        var channel = ctx.channels().get(channelName);
        if (channel.isEmpty()) {
            return Channel.SendResult.failed("channel '" + channelName + "' is not configured");
        }
        Channel.SendResult r = channel.get()
                .send(new Channel.Outgoing(
                        0,
                        channelName,
                        dedupeKey,
                        content.in(ctx.words(channelName)).masked(ctx.mask())));
        ctx.channels().record(channelName, r, ctx.node().context().clock().now());
        ctx.metrics().delivered(channelName, r.ok());
        return r;
    }

    /** What a storm summary stands for, in its channel's words: the titles of the alerts it collapsed. */
    private AlertContent summary(Tx tx, Outbox.AlertRow row) {
        AlertWords w = ctx.words(row.channel());
        long count = ctx.store().alerts().countCollapsedInto(tx, row.id());
        List<String> details = new ArrayList<>();
        for (Outbox.AlertRow a : ctx.outbox().collapsedInto(tx, row.id(), SUMMARY_LINES)) {
            details.add(a.content().title());
        }
        if (count > details.size()) {
            details.add(w.text("more", count - details.size()));
        }
        Map<String, String> f = new LinkedHashMap<>();
        f.put("Channel", row.channel());
        f.put("Minute", row.dedupeKey().substring("storm:".length()));
        return new AlertContent(
                AlertKind.STORM_SUMMARY,
                w.text("storm.title", count, row.channel()),
                f,
                details,
                null,
                w.text("storm.next", ctx.config().stormLimit()),
                null,
                w.locale());
    }

    /** The delivery's event: on the run when the alert is about one, else on the task, else a node-level event. */
    private void note(Tx tx, Outbox.AlertRow row, EventType type, String message) {
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("alertId", row.id());
        data.put("channel", row.channel());
        data.put("kind", row.kind().name());
        data.put("dedupeKey", row.dedupeKey());
        if (row.instanceId() != null && RunHistoryReads.exists(tx, row.instanceId())) {
            ctx.store()
                    .events()
                    .appendForRun(
                            tx, row.instanceId(), type, null, null, AlertsContext.ACTOR, ctx.nodeId(), message, data);
        } else {
            ctx.store()
                    .events()
                    .append(
                            tx,
                            new NewEvent(
                                    row.taskId(),
                                    row.taskName(),
                                    type,
                                    AlertsContext.ACTOR,
                                    ctx.nodeId(),
                                    message,
                                    data));
        }
    }
}
