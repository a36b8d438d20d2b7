package dev.ax.scheduler;

import java.util.Map;

/**
 * Sends a follow-up webhook. The scheduler does not speak HTTP itself (an ArchUnit rule); the
 * server node plugs in an implementation.
 */
@FunctionalInterface
public interface WebhookSender {
    WebhookSender NONE = (url, headers, body) -> new Result(false, "this node has no webhook sender");

    Result send(String url, Map<String, String> headers, String jsonBody);

    /** @param detail the status line or the error, for the event */
    record Result(boolean delivered, String detail) {}
}
