package dev.ax.alerts;

import dev.ax.domain.time.AxClock;
import dev.ax.store.Json;
import java.io.IOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * A DingTalk group robot, Markdown messages. In the signed mode ("加签") each request carries the
 * time in milliseconds and {@code sign = urlencode(base64(HmacSHA256(secret, timestamp + "\n" + secret)))};
 * DingTalk refuses a timestamp more than an hour off, so it comes from the node's database-corrected clock.
 */
final class DingTalkChannel extends HttpChannel {
    private final ChannelConfig.DingTalk config;
    private final AxClock clock;

    DingTalkChannel(ChannelConfig.DingTalk config, AxClock clock) {
        this.config = config;
        this.clock = clock;
    }

    @Override
    public ChannelConfig config() {
        return config;
    }

    @Override
    SendResult post(Outgoing alert) throws IOException, InterruptedException {
        String url = config.webhook();
        if (config.secret() != null) {
            long timestamp = clock.now().toEpochMilli();
            url += (url.contains("?") ? "&" : "?") + "timestamp=" + timestamp + "&sign="
                    + sign(timestamp, config.secret());
        }
        String text = AlertText.markdown(alert.content());
        if (!config.atMobiles().isEmpty()) {
            // DingTalk only mentions a number that also appears in the text.
            text += "\n"
                    + String.join(
                            " ", config.atMobiles().stream().map(m -> "@" + m).toList());
        }
        Map<String, Object> markdown = new LinkedHashMap<>();
        markdown.put("title", AlertText.subject(alert.content()));
        markdown.put("text", text);
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("msgtype", "markdown");
        body.put("markdown", markdown);
        body.put("at", Map.of("atMobiles", config.atMobiles(), "isAtAll", config.atAll()));
        return robotAnswer(HttpPost.json(url, Map.of(), Json.write(body)), "errcode");
    }

    /** DingTalk's signature of a request at {@code timestampMillis}, URL-encoded. */
    static String sign(long timestampMillis, String secret) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
            byte[] digest = mac.doFinal((timestampMillis + "\n" + secret).getBytes(StandardCharsets.UTF_8));
            return URLEncoder.encode(Base64.getEncoder().encodeToString(digest), StandardCharsets.UTF_8);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is missing from this JVM", e);
        }
    }
}
