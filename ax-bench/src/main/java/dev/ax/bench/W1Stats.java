package dev.ax.bench;

import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.HdrHistogram.Histogram;

/**
 * Turns the runs one system recorded into the W1 figures, the same way for every system.
 *
 * <ul>
 *   <li><b>runs/s</b>: runs that started inside the measured window [t0, t1), per second;
 *   <li><b>lag</b>: start − scheduled slot of those runs (HdrHistogram, ms);
 *   <li><b>duplicates</b>: (task, slot) pairs that ran more than once, over everything recorded;
 *   <li><b>missed</b>: slots inside the window (one per task per whole second) that had no run
 *       started by t1 + grace: never run, skipped by a misfire policy, or still waiting. A run
 *       serves the second its scheduled time falls in (db-scheduler's cron schedule keeps the
 *       sub-second part of the completion time, so its runs are not on whole seconds).
 * </ul>
 */
final class W1Stats {
    private W1Stats() {}

    record Figures(
            long runs,
            double runsPerSecond,
            double demandPerSecond,
            long lagP50,
            long lagP99,
            long lagMax,
            long duplicates,
            long expectedSlots,
            long missedSlots) {
        Map<String, Object> toMap() {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("runsInWindow", runs);
            m.put("runsPerSecond", round(runsPerSecond));
            m.put("demandPerSecond", round(demandPerSecond));
            m.put("lagP50Ms", lagP50);
            m.put("lagP99Ms", lagP99);
            m.put("lagMaxMs", lagMax);
            m.put("duplicates", duplicates);
            m.put("expectedSlots", expectedSlots);
            m.put("missedSlots", missedSlots);
            return m;
        }
    }

    /**
     * The first whole epoch second at or after {@code millis}: of the window's start, its first slot
     * (inclusive); of its end, the second after its last slot (exclusive: slots before t1).
     */
    static long slotAtOrAfter(long millis) {
        return (millis + 999) / 1000;
    }

    static double round(double v) {
        return Math.round(v * 10) / 10.0;
    }

    /**
     * @param tasks     N: tasks each due every second
     * @param t0Millis  window start (epoch ms)
     * @param t1Millis  window end (epoch ms)
     * @param graceMillis how long after t1 a run of a slot inside the window may start and still count as served
     */
    static Figures evaluate(RunLog.Runs runs, int tasks, long t0Millis, long t1Millis, long graceMillis) {
        Histogram lag = new Histogram(3_600_000L, 3);
        long inWindow = 0;
        Map<Long, Integer> seen = new HashMap<>(runs.size() * 2);
        long duplicates = 0;
        long firstSlot = slotAtOrAfter(t0Millis);
        long endSlot = slotAtOrAfter(t1Millis);
        Set<Long> served = new HashSet<>();
        for (int i = 0; i < runs.size(); i++) {
            long task = runs.task()[i];
            long sched = runs.scheduled()[i];
            long start = runs.started()[i];
            long key = task * 10_000_000_000L + sched;
            if (seen.merge(key, 1, Integer::sum) == 2) {
                duplicates++;
            }
            if (start >= t0Millis && start < t1Millis) {
                inWindow++;
                lag.recordValue(Math.clamp(start - sched, 0, lag.getHighestTrackableValue()));
            }
            long slotSecond = Math.floorDiv(sched, 1000);
            if (slotSecond >= firstSlot && slotSecond < endSlot && start <= t1Millis + graceMillis) {
                served.add(task * 10_000_000_000L + slotSecond);
            }
        }
        long expected = Math.max(0, endSlot - firstSlot) * tasks;
        double seconds = (t1Millis - t0Millis) / 1000.0;
        return new Figures(
                inWindow,
                inWindow / seconds,
                tasks,
                inWindow == 0 ? -1 : lag.getValueAtPercentile(50),
                inWindow == 0 ? -1 : lag.getValueAtPercentile(99),
                inWindow == 0 ? -1 : lag.getMaxValue(),
                duplicates,
                expected,
                Math.max(0, expected - served.size()));
    }
}
