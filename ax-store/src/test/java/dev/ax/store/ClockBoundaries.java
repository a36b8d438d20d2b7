package dev.ax.store;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;
import java.util.function.UnaryOperator;
import org.awaitility.Awaitility;

/**
 * For tests whose outcome depends on where the clock falls (a minute's end, midnight, a daily
 * slot): wait until a boundary is far enough off, by the database's clock, the one AX reads.
 */
public final class ClockBoundaries {
    private ClockBoundaries() {}

    /**
     * Waits until at least {@code margin} is left before the next boundary that {@code nextBoundary}
     * gives for a time; returns the database time then.
     */
    public static Instant awaitClearOf(Store store, Duration margin, UnaryOperator<Instant> nextBoundary) {
        Instant now = store.tx(Tx::now);
        Instant boundary = nextBoundary.apply(now);
        if (Duration.between(now, boundary).compareTo(margin) < 0) {
            Awaitility.await()
                    .atMost(margin.plusSeconds(5))
                    .until(() -> !store.tx(Tx::now).isBefore(boundary));
            now = store.tx(Tx::now);
        }
        return now;
    }

    /** As {@link #awaitClearOf}, for the end of the minute. */
    public static Instant awaitClearOfMinuteEnd(Store store, Duration margin) {
        return awaitClearOf(
                store, margin, t -> t.truncatedTo(ChronoUnit.MINUTES).plusSeconds(60));
    }

    /** As {@link #awaitClearOf}, for the next {@code time} of day in {@code zone} (midnight: {@link LocalTime#MIDNIGHT}). */
    public static Instant awaitClearOfTimeOfDay(Store store, ZoneId zone, LocalTime time, Duration margin) {
        return awaitClearOf(store, margin, t -> {
            ZonedDateTime now = t.atZone(zone);
            ZonedDateTime today = now.toLocalDate().atTime(time).atZone(zone);
            return (today.isAfter(now)
                            ? today
                            : now.toLocalDate().plusDays(1).atTime(time).atZone(zone))
                    .toInstant();
        });
    }
}
