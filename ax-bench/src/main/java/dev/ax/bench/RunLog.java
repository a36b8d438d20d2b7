package dev.ax.bench;

import java.util.Arrays;
import java.util.List;
import java.util.function.ToLongFunction;

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
        ensureRoom(1);
        task[size] = taskIndex;
        scheduled[size] = scheduledMillis;
        started[size] = startedMillis;
        size++;
    }

    /** Several runs that started at the same instant, under one lock. */
    synchronized <T> void addAll(
            List<T> runs, ToLongFunction<T> taskIndex, ToLongFunction<T> scheduledMillis, long startedMillis) {
        ensureRoom(runs.size());
        for (T run : runs) {
            task[size] = taskIndex.applyAsLong(run);
            scheduled[size] = scheduledMillis.applyAsLong(run);
            started[size] = startedMillis;
            size++;
        }
    }

    private void ensureRoom(int more) {
        if (size + more > task.length) {
            int capacity = Math.max(task.length * 2, size + more);
            task = Arrays.copyOf(task, capacity);
            scheduled = Arrays.copyOf(scheduled, capacity);
            started = Arrays.copyOf(started, capacity);
        }
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
