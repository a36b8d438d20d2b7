package dev.ax.alerts;

import dev.ax.domain.time.AxClock;
import dev.ax.store.Json;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/** Feishu/Lark (text, optionally signed), WeCom (Markdown, at most 4096 bytes) and Slack (text) robots. */
final class RobotChannel extends HttpChannel {
    /** WeCom refuses Markdown content over 4096 bytes. */
    static final int WECOM_MAX_BYTES = 4096;

    private final ChannelConfig.Robot config;
    private final AxClock clock;

    RobotChannel(ChannelConfig.Robot config, AxClock clock) {
        this.config = config;
        this.clock = clock;
    }

    @Override
    public ChannelConfig config() {
        return config;
    }

    @Override
    SendResult post(Outgoing alert) throws IOException, InterruptedException {
        Map<String, Object> body = new LinkedHashMap<>();
        switch (config.kind()) {
            case FEISHU -> {
                if (config.secret() != null) {
                    long seconds = clock.now().getEpochSecond();
                    body.put("timestamp", Long.toString(seconds));
                    body.put("sign", feishuSign(seconds, config.secret()));
                }
                body.put("msg_type", "text");
                body.put("content", Map.of("text", AlertText.plain(alert.content())));
                return robotAnswer(HttpPost.json(config.webhook(), Map.of(), Json.write(body)), "code");
            }
            case WECOM -> {
                body.put("msgtype", "markdown");
                body.put("markdown", Map.of("content", cut(AlertText.markdown(alert.content()), WECOM_MAX_BYTES)));
                return robotAnswer(HttpPost.json(config.webhook(), Map.of(), Json.write(body)), "errcode");
            }
            case SLACK -> {
                body.put("text", AlertText.plain(alert.content()));
                HttpPost.Answer answer = HttpPost.json(config.webhook(), Map.of(), Json.write(body));
                return answer.is2xx()
                        ? SendResult.ok("HTTP " + answer.status())
                        : SendResult.failed(
                                "HTTP " + answer.status() + " " + Secrets.scrub(answer.body(), config.secrets()));
            }
            default -> throw new IllegalStateException("unknown robot " + config.kind());
        }
    }

    /** Feishu signs with the key {@code timestamp + "\n" + secret} over an empty message. */
    static String feishuSign(long timestampSeconds, String secret) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(
                    (timestampSeconds + "\n" + secret).getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
            return Base64.getEncoder().encodeToString(mac.doFinal(new byte[0]));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is missing from this JVM", e);
        }
    }

    /** The longest prefix of {@code s} within {@code maxBytes} of UTF-8, cut at a character. */
    static String cut(String s, int maxBytes) {
        byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
        if (bytes.length <= maxBytes) {
            return s;
        }
        int end = maxBytes - 3;
        while (end > 0 && (bytes[end] & 0xC0) == 0x80) {
            end--;
        }
        return new String(bytes, 0, end, StandardCharsets.UTF_8) + "…";
    }
}
