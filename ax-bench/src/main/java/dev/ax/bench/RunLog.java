package dev.ax.bench;

import java.util.Arrays;

/**
 * What a no-op job writes down when it starts: which task, the slot it was scheduled for and
 * when it actually started (epoch milliseconds). Cheap and thread-safe; the runs per second
 * here are at most tens of thousands.
 */
final class RunLog {
    private long[] task = new long[1 << 16];
    private long[] scheduled = new long[1 << 16];
    private long[] started = new long[1 << 16];
    private int size;

    synchronized void add(long taskIndex, long scheduledMillis, long startedMillis) {
        if (size == task.length) {
            task = Arrays.copyOf(task, size * 2);
            scheduled = Arrays.copyOf(scheduled, size * 2);
            started = Arrays.copyOf(started, size * 2);
        }
        task[size] = taskIndex;
        scheduled[size] = scheduledMillis;
        started[size] = startedMillis;
        size++;
    }

    synchronized int size() {
        return size;
    }

    /** A copy of what was recorded so far. */
    synchronized Runs snapshot() {
        return new Runs(Arrays.copyOf(task, size), Arrays.copyOf(scheduled, size), Arrays.copyOf(started, size));
    }

    /** Recorded runs as parallel arrays. */
    record Runs(long[] task, long[] scheduled, long[] started) {
        int size() {
            return task.length;
        }
    }
}
