package dev.ax.alerts;

import dev.ax.domain.secret.SecretMask;
import dev.ax.scheduler.SchedulerNode;
import dev.ax.store.Store;
import dev.ax.store.Tx;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** What every part of the alerting side needs, passed as one object. */
record AlertsContext(
        SchedulerNode node,
        AlertsConfig config,
        Channels channels,
        AxMetrics metrics,
        Outbox outbox,
        RunAlerts runAlerts) {
    private static final Logger LOG = LoggerFactory.getLogger(AlertsContext.class);
    static final String ACTOR = "alerts";

    Store store() {
        return node.context().store();
    }

    /** The values of the secrets this node knows of, written as {@code ***} in alert texts. */
    SecretMask mask() {
        return node.secrets().mask();
    }

    String nodeId() {
        return node.context().nodeId();
    }

    /** The words of a channel's alerts: its {@code language}, else the server's. */
    AlertWords words(String channel) {
        return AlertWords.of(config.languageOf(channel));
    }

    /** The configured ones of {@code wanted}, then the system channels: for anomalies, which concern both a task and operations. */
    List<String> taskAndSystem(List<String> wanted) {
        List<String> all = new ArrayList<>(channels.configured(wanted));
        config.systemChannels().forEach(c -> {
            if (!all.contains(c)) {
                all.add(c);
            }
        });
        return all;
    }

    /**
     * Writes an alert to the outbox for the channels; with none, the server log is its only trace. Every alert comes in
     * here, so its text is masked here: a failure message or a log tail stored before a secret existed may hold one.
     */
    int enqueue(Tx tx, Outbox.NewAlert unmasked, List<String> channelNames) {
        Outbox.NewAlert alert = new Outbox.NewAlert(
                unmasked.kind(),
                unmasked.dedupeKey(),
                unmasked.taskId(),
                unmasked.taskName(),
                unmasked.instanceId(),
                w -> unmasked.content().in(w).masked(mask()));
        if (channelNames.isEmpty()) {
            LOG.warn(
                    "alert with no channel to send it to: {}",
                    alert.content().in(AlertWords.ENGLISH).title());
            return 0;
        }
        int rows = outbox.enqueue(tx, alert, channelNames, config.stormLimit(), this::words);
        if (rows > 0) {
            metrics.alertsWritten(alert.kind(), rows);
        }
        return rows;
    }
}
