package dev.ax.alerts;

/**
 * Sends alerts to one configured place. Never throws and never blocks for long (every network
 * call has a timeout): a channel that is down answers a failed {@link SendResult}, which the
 * delivery loop retries later. Nothing else waits for a channel.
 */
interface Channel {
    ChannelConfig config();

    SendResult send(Outgoing alert);

    /** One alert on its way to one channel. */
    record Outgoing(long alertId, String channel, String dedupeKey, AlertContent content) {}

    /** @param detail what the other side answered, or why it could not be reached (secrets scrubbed) */
    record SendResult(boolean ok, String detail) {
        static SendResult ok(String detail) {
            return new SendResult(true, detail);
        }

        static SendResult failed(String detail) {
            return new SendResult(false, detail);
        }
    }
}
