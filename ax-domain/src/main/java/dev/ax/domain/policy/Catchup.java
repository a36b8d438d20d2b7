package dev.ax.domain.policy;

import dev.ax.domain.schedule.Schedule;
import dev.ax.domain.task.MisfirePolicy;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Decides which due slots of one task become runs. A pure function: the scheduler reads the
 * task's {@code next_fire_at} and the database time, calls {@link #plan}, and does the I/O.
 *
 * <p>A slot due within {@code window} of now is on time and fires. An older one was missed (a
 * pause, a GC, a restart, downtime) and the task's {@link MisfirePolicy} decides: FIRE_ALL runs
 * each; FIRE_ONCE runs only the latest missed slot; SKIP runs none. Every missed slot that does
 * not run is reported, so the caller can leave an event for it.
 *
 * <p>At most {@code maxSlots} slots are looked at per call so that a month-long pause of an
 * every-second task cannot stall a tick; the plan's {@code nextFireAt} then points at the first
 * slot not yet looked at and the next tick goes on from there.
 */
public final class Catchup {
    public static final Duration DEFAULT_WINDOW = Duration.ofSeconds(60);
    public static final int DEFAULT_MAX_SLOTS = 10_000;
    /** Missed slots listed one by one; the rest of a plan's skipped slots are summarised. */
    public static final int LISTED_SKIPS = 20;

    private Catchup() {}

    /** One slot to fire; {@code late} when it is a missed slot fired by the misfire policy. */
    public record Slot(Instant at, boolean late) {}

    /**
     * @param fire         slots to turn into runs, oldest first
     * @param skipped      missed slots not run, listed one by one (at most {@link #LISTED_SKIPS})
     * @param skippedMore  how many further missed slots were not run, between
     *                     {@code skippedMoreFrom} and {@code skippedMoreTo} inclusive
     * @param nextFireAt   the task's new {@code next_fire_at}; {@code null} when the schedule has
     *                     no further slot
     */
    public record Plan(
            List<Slot> fire,
            List<Instant> skipped,
            long skippedMore,
            Instant skippedMoreFrom,
            Instant skippedMoreTo,
            Instant nextFireAt) {
        public long skippedTotal() {
            return skipped.size() + skippedMore;
        }
    }

    public static Plan plan(
            Schedule schedule, Instant firstDue, Instant now, Duration window, MisfirePolicy policy, int maxSlots) {
        return plan(schedule, firstDue, now, Duration.ZERO, window, policy, maxSlots);
    }

    /**
     * As above, also firing the slots due within {@code ahead} after {@code now}: their runs are
     * created early and wait for their slot ({@code ready_at}), so they start on time instead of
     * after the time it takes to create them. Lateness is still measured from {@code now}.
     */
    public static Plan plan(
            Schedule schedule,
            Instant firstDue,
            Instant now,
            Duration ahead,
            Duration window,
            MisfirePolicy policy,
            int maxSlots) {
        Objects.requireNonNull(firstDue, "firstDue");
        if (ahead.isNegative()) {
            throw new IllegalArgumentException("ahead must not be negative, was " + ahead);
        }
        Instant lateBefore = now.minus(window);
        Instant horizon = now.plus(ahead);
        List<Slot> fire = new ArrayList<>();
        List<Instant> missed = new ArrayList<>();
        Instant slot = firstDue;
        int looked = 0;
        while (slot != null && !slot.isAfter(horizon) && looked < maxSlots) {
            if (slot.isBefore(lateBefore)) {
                missed.add(slot);
            } else {
                fire.add(new Slot(slot, false));
            }
            looked++;
            slot = schedule.nextAfter(slot).orElse(null);
        }
        // Still inside the missed region when the cap stopped us: the latest missed slot is not known yet.
        boolean missedRegionEnds = slot == null || !slot.isBefore(lateBefore);

        List<Slot> lateFires = new ArrayList<>();
        List<Instant> notRun = new ArrayList<>();
        switch (policy) {
            case FIRE_ALL -> missed.forEach(m -> lateFires.add(new Slot(m, true)));
            case SKIP -> notRun.addAll(missed);
            case FIRE_ONCE -> {
                if (!missed.isEmpty() && missedRegionEnds) {
                    notRun.addAll(missed.subList(0, missed.size() - 1));
                    lateFires.add(new Slot(missed.getLast(), true));
                } else {
                    notRun.addAll(missed);
                }
            }
        }
        List<Slot> all = new ArrayList<>(lateFires);
        all.addAll(fire);

        List<Instant> listed = notRun.subList(0, Math.min(LISTED_SKIPS, notRun.size()));
        List<Instant> rest = notRun.subList(listed.size(), notRun.size());
        return new Plan(
                List.copyOf(all),
                List.copyOf(listed),
                rest.size(),
                rest.isEmpty() ? null : rest.getFirst(),
                rest.isEmpty() ? null : rest.getLast(),
                slot);
    }
}
