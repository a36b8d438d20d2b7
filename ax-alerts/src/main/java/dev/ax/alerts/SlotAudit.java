package dev.ax.alerts;

import dev.ax.domain.schedule.Schedule;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * Compares a task's scheduled runs with its schedule. Pure: the slots, the runs and the recorded skips go in, the findings come out.
 *
 * <p>A slot with two runs is a duplicate execution (the unique (task, slot) key makes it
 * impossible, so seeing one means something bypassed it); a run at a time that is no slot is
 * reported with it. A slot with no run and no MISFIRE_SKIPPED event is a missed execution.
 */
final class SlotAudit {
    /** An every-second task has 600 slots in ten minutes; beyond this the window is cut. */
    static final int MAX_SLOTS = 5_000;

    record Run(long id, Instant slot) {}

    /** Slots recorded as skipped by the misfire policy: single ones, and "N more from A to B" ranges. */
    record Skips(Set<Instant> slots, List<Instant[]> ranges) {
        static final Skips NONE = new Skips(Set.of(), List.of());

        boolean covers(Instant slot) {
            if (slots.contains(slot)) {
                return true;
            }
            for (Instant[] r : ranges) {
                if (!slot.isBefore(r[0]) && !slot.isAfter(r[1])) {
                    return true;
                }
            }
            return false;
        }
    }

    /**
     * @param duplicates slots with more than one run, with the runs' ids
     * @param strays     runs at times the schedule has no slot for
     * @param missed     slots with neither a run nor a recorded skip
     */
    record Findings(Map<Instant, List<Long>> duplicates, List<Run> strays, List<Instant> missed) {
        boolean clean() {
            return duplicates.isEmpty() && strays.isEmpty() && missed.isEmpty();
        }
    }

    private SlotAudit() {}

    /** The slots in {@code (from, to]}, oldest first, at most {@link #MAX_SLOTS}. */
    static List<Instant> slots(Schedule schedule, Instant from, Instant to) {
        List<Instant> out = new ArrayList<>();
        Optional<Instant> next = schedule.nextAfter(from);
        while (next.isPresent() && !next.get().isAfter(to) && out.size() < MAX_SLOTS) {
            out.add(next.get());
            next = schedule.nextAfter(next.get());
        }
        return out;
    }

    static Findings audit(List<Instant> slots, List<Run> runs, Skips skips) {
        Set<Instant> expected = new HashSet<>(slots);
        Map<Instant, List<Long>> bySlot = new TreeMap<>();
        List<Run> strays = new ArrayList<>();
        for (Run r : runs) {
            if (expected.contains(r.slot())) {
                bySlot.computeIfAbsent(r.slot(), k -> new ArrayList<>()).add(r.id());
            } else {
                strays.add(r);
            }
        }
        Map<Instant, List<Long>> duplicates = new LinkedHashMap<>();
        bySlot.forEach((slot, ids) -> {
            if (ids.size() > 1) {
                duplicates.put(slot, ids.stream().sorted().toList());
            }
        });
        List<Instant> missed = slots.stream()
                .filter(s -> !bySlot.containsKey(s) && !skips.covers(s))
                .toList();
        return new Findings(duplicates, strays, missed);
    }
}
