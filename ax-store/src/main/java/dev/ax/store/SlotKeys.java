package dev.ax.store;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;

/**
 * Fire-key bounds for the scheduled runs of a time range. A scheduled run (cause CRON or INTERVAL)
 * is keyed by its slot, {@code Instant.toString()} ({@code Firing.fireKey}): every key of a slot
 * within one second starts with that second's 19 characters ({@code 2026-11-29T02:00:00}), then
 * {@code .} or {@code Z}. So those keys sort at or after the second's prefix and before the next
 * second's, and a range of slots is a range of the task's (task, fire key) index, the unique one
 * every run writes anyway. The bounds are whole seconds: a query keeps its exact condition on
 * {@code scheduled_at} as well.
 */
public final class SlotKeys {
    private static final DateTimeFormatter SECOND =
            DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss").withZone(ZoneOffset.UTC);
    /** Above the key of every slot before the year 10000. */
    static final String MAX = "9999-12-31T23:59:60";
    /** The runs keyed by their slot, as SQL; and the others, word for word the predicate of the index by slot (V33). */
    public static final String SCHEDULED = "cause IN ('CRON', 'INTERVAL')";

    public static final String NOT_SCHEDULED = "cause NOT IN ('CRON', 'INTERVAL')";

    private SlotKeys() {}

    /** At or below the key of every slot at or after {@code t}. */
    public static String floor(Instant t) {
        return SECOND.format(t.truncatedTo(ChronoUnit.SECONDS));
    }

    /** Above the key of every slot at or before {@code t}. */
    public static String ceiling(Instant t) {
        return floor(t.truncatedTo(ChronoUnit.SECONDS).plusSeconds(1));
    }
}
