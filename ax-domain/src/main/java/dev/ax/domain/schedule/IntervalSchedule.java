package dev.ax.domain.schedule;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * Slots at {@code anchor + k * interval}. The anchor is fixed (the trigger's {@code startAt},
 * else the Unix epoch) so that every node, before and after a restart, computes the same slots
 * and therefore the same fire keys.
 */
public final class IntervalSchedule implements Schedule {
    private final long intervalSeconds;
    private final Instant anchor;

    public IntervalSchedule(long intervalSeconds, Instant anchor) {
        if (intervalSeconds <= 0) {
            throw new IllegalArgumentException("intervalSeconds must be positive, was " + intervalSeconds);
        }
        this.intervalSeconds = intervalSeconds;
        this.anchor = anchor == null ? Instant.EPOCH : anchor;
    }

    @Override
    public Optional<Instant> nextAfter(Instant after) {
        if (after.isBefore(anchor)) {
            return Optional.of(anchor);
        }
        // Whole seconds elapsed since the anchor, counted from the anchor's own fraction of a
        // second: subtracting epoch seconds would skip a slot when the anchor has nanos.
        long elapsed = Duration.between(anchor, after).getSeconds();
        // Slots are whole seconds from the anchor; the next one is the first multiple past `after`.
        long k = Math.floorDiv(elapsed, intervalSeconds) + 1;
        if (k > (Instant.MAX.getEpochSecond() - anchor.getEpochSecond()) / intervalSeconds) {
            return Optional.empty(); // the next slot is past the last representable instant
        }
        return Optional.of(anchor.plusSeconds(k * intervalSeconds));
    }
}
