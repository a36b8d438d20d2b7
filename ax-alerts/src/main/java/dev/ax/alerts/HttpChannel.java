package dev.ax.alerts;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;

/** The shared part of the HTTP channels: a failure of any kind becomes a failed result with secrets scrubbed. */
abstract class HttpChannel implements Channel {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Override
    public final SendResult send(Outgoing alert) {
        try {
            return post(alert);
        } catch (IOException | RuntimeException e) {
            return SendResult.failed(Secrets.scrub(e.toString(), config().secrets()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return SendResult.failed("interrupted");
        }
    }

    abstract SendResult post(Outgoing alert) throws IOException, InterruptedException;

    /**
     * The robots' convention: HTTP 200 with {@code {"errcode":0}} (DingTalk, WeCom) or
     * {@code {"code":0}} (Feishu); anything else names the robot's own error.
     */
    final SendResult robotAnswer(HttpPost.Answer answer, String codeField) {
        String body = Secrets.scrub(answer.body(), config().secrets());
        if (!answer.is2xx()) {
            return SendResult.failed("HTTP " + answer.status() + " " + body);
        }
        try {
            JsonNode json = JSON.readTree(answer.body());
            JsonNode code = json == null ? null : json.get(codeField);
            if (code == null && "code".equals(codeField)) {
                code = json == null ? null : json.get("StatusCode");
            }
            if (code != null && code.asInt(-1) == 0) {
                return SendResult.ok("HTTP " + answer.status());
            }
            return SendResult.failed("HTTP " + answer.status() + " " + body);
        } catch (IOException e) {
            return SendResult.failed("HTTP " + answer.status() + ", not the robot's JSON answer: " + body);
        }
    }
}
