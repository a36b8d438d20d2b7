package dev.ax.domain.policy;

import dev.ax.domain.schedule.Schedule;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The slots a backfill covers: the task's own schedule, in its time zone, from the start of
 * {@code from} to the end of {@code to} (both dates inclusive). For a daily task that is one slot
 * per business date. A pure function.
 */
public final class BackfillSlots {
    public static final int MAX_SLOTS = 10_000;

    private BackfillSlots() {}

    /** Throws IllegalArgumentException when the range holds more than {@link #MAX_SLOTS} slots. */
    public static List<Instant> of(Schedule schedule, ZoneId zone, LocalDate from, LocalDate to, boolean newestFirst) {
        return between(schedule, start(zone, from), end(zone, to), newestFirst);
    }

    /** The first instant of {@code from} in {@code zone}. */
    public static Instant start(ZoneId zone, LocalDate from) {
        return from.atStartOfDay(zone).toInstant();
    }

    /** The first instant after {@code to} in {@code zone}. */
    public static Instant end(ZoneId zone, LocalDate to) {
        return to.plusDays(1).atStartOfDay(zone).toInstant();
    }

    /** Slots in {@code [start, end)}. */
    public static List<Instant> between(Schedule schedule, Instant start, Instant end, boolean newestFirst) {
        List<Instant> slots = new ArrayList<>();
        // nextAfter is strictly after: step back a nanosecond so a slot at midnight of `from` counts.
        Instant slot = schedule.nextAfter(start.minusNanos(1)).orElse(null);
        while (slot != null && slot.isBefore(end)) {
            if (slots.size() == MAX_SLOTS) {
                throw new IllegalArgumentException("the range holds more than " + MAX_SLOTS + " slots; split it");
            }
            slots.add(slot);
            slot = schedule.nextAfter(slot).orElse(null);
        }
        if (newestFirst) {
            Collections.reverse(slots);
        }
        return slots;
    }
}
