package dev.ax.alerts;

import dev.ax.domain.time.AxClock;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The configured channels by name, and how each fared lately on this node (for /healthz): a
 * channel whose last delivery failed is "failing" until one succeeds.
 */
final class Channels {
    private final Map<String, Channel> byName = new LinkedHashMap<>();
    private final Map<String, Stats> stats = new ConcurrentHashMap<>();

    private record Stats(Instant lastOkAt, Instant lastFailedAt, String lastError, int failuresInARow) {
        static final Stats NONE = new Stats(null, null, null, 0);
    }

    Channels(Map<String, ChannelConfig> configs, AxClock clock) {
        configs.forEach((name, c) -> byName.put(
                name,
                switch (c) {
                    case ChannelConfig.Email e -> new EmailChannel(e, clock);
                    case ChannelConfig.DingTalk d -> new DingTalkChannel(d, clock);
                    case ChannelConfig.Webhook w -> new WebhookChannel(w);
                    case ChannelConfig.Robot r -> new RobotChannel(r, clock);
                }));
    }

    /** For tests: channels built elsewhere. */
    Channels(Map<String, Channel> channels) {
        byName.putAll(channels);
    }

    Optional<Channel> get(String name) {
        return Optional.ofNullable(byName.get(name));
    }

    boolean has(String name) {
        return byName.containsKey(name);
    }

    /** {@code wanted} without the names that are not configured here, in order, once each. */
    List<String> configured(List<String> wanted) {
        return wanted.stream().filter(byName::containsKey).distinct().toList();
    }

    void record(String name, Channel.SendResult result, Instant at) {
        stats.merge(
                name,
                result.ok() ? new Stats(at, null, null, 0) : new Stats(null, at, result.detail(), 1),
                (old, now) -> result.ok()
                        ? new Stats(at, old.lastFailedAt(), old.lastError(), 0)
                        : new Stats(old.lastOkAt(), at, result.detail(), old.failuresInARow() + 1));
    }

    /** True if some channel's last delivery on this node failed. */
    boolean anyFailing() {
        return stats.values().stream().anyMatch(s -> s.failuresInARow() > 0);
    }

    /** Per channel: type, target (no secrets), state and the last error; {@code pending} from the outbox. */
    Map<String, Object> health(Map<String, Long> pending) {
        Map<String, Object> out = new LinkedHashMap<>();
        byName.forEach((name, ch) -> {
            Stats s = stats.getOrDefault(name, Stats.NONE);
            Map<String, Object> h = new LinkedHashMap<>();
            h.put("type", ch.config().type());
            h.put("target", ch.config().target());
            h.put("state", s.failuresInARow() > 0 ? "failing" : s.lastOkAt() != null ? "ok" : "unused");
            h.put("pending", pending.getOrDefault(name, 0L));
            h.put("lastSentAt", iso(s.lastOkAt()));
            h.put("lastFailedAt", iso(s.lastFailedAt()));
            h.put("lastError", s.lastError());
            h.put("failuresInARow", s.failuresInARow());
            out.put(name, h);
        });
        return out;
    }

    private static String iso(Instant t) {
        return t == null ? null : t.toString();
    }
}
