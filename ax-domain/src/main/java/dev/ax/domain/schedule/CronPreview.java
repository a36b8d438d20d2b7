package dev.ax.domain.schedule;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/** The next few slots of a schedule, for {@code GET /api/cron/next} and for people checking an expression. */
public final class CronPreview {
    /** A preview is for reading; the cap keeps one request from asking for a million slots. */
    public static final int MAX_COUNT = 100;

    private CronPreview() {}

    /**
     * The next {@code count} slots strictly after {@code after}, fewer if the schedule runs out.
     *
     * @throws IllegalArgumentException if {@code count} is not between 1 and {@value #MAX_COUNT}
     */
    public static List<Instant> preview(Schedule schedule, Instant after, int count) {
        Objects.requireNonNull(schedule, "schedule");
        Objects.requireNonNull(after, "after");
        if (count < 1 || count > MAX_COUNT) {
            throw new IllegalArgumentException("count must be between 1 and " + MAX_COUNT);
        }
        List<Instant> slots = new ArrayList<>(count);
        Instant cursor = after;
        while (slots.size() < count) {
            Optional<Instant> next = schedule.nextAfter(cursor);
            if (next.isEmpty()) {
                break;
            }
            cursor = next.get();
            slots.add(cursor);
        }
        return List.copyOf(slots);
    }
}
