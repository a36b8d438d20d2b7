package dev.ax.alerts;

import dev.ax.store.Json;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A generic JSON webhook: the alert's content as an object (kind, severity, title, fields,
 * details, logTail, nextAction, link) plus {@code text} (the plain rendering) and the ids to
 * dedupe on, since a retried delivery may arrive twice. Any 2xx answer counts as delivered.
 */
final class WebhookChannel extends HttpChannel {
    private final ChannelConfig.Webhook config;

    WebhookChannel(ChannelConfig.Webhook config) {
        this.config = config;
    }

    @Override
    public ChannelConfig config() {
        return config;
    }

    @Override
    SendResult post(Outgoing alert) throws IOException, InterruptedException {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("alertId", alert.alertId());
        body.put("dedupeKey", alert.dedupeKey());
        body.put("channel", alert.channel());
        body.putAll(alert.content().toMap());
        body.put("text", AlertText.plain(alert.content()));
        HttpPost.Answer answer = HttpPost.json(config.url(), config.headers(), Json.write(body));
        return answer.is2xx()
                ? SendResult.ok("HTTP " + answer.status())
                : SendResult.failed("HTTP " + answer.status() + " " + Secrets.scrub(answer.body(), config.secrets()));
    }
}
