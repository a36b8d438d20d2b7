package dev.ax.scheduler;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;

/**
 * Group commit: many threads each hand in one item and wait for its answer; a caller that finds
 * fewer than {@code writers} batches being written takes everything queued (up to
 * {@code maxBatch}) and writes it as one batch — typically one transaction — while the callers
 * that arrive meanwhile queue up for the next one. Alone, an item is written at once, by its own
 * caller; under load the batches grow by themselves, and the cost of a commit (a WAL flush, the
 * larger part of a short run's cost on PostgreSQL) is shared by the whole batch.
 *
 * <p>No thread of its own: the writing is done by callers. An answer is handed back only after
 * its batch was written, so a caller told "done" can rely on it (the commit happened).
 *
 * @param <I> what a caller hands in
 * @param <O> its answer; the batch function returns one per item, in order
 */
final class GroupCommit<I, O> {
    private final Function<List<I>, List<O>> writeBatch;
    private final int writers;
    private final int maxBatch;

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition written = lock.newCondition();
    private final ArrayDeque<Entry<I, O>> queue = new ArrayDeque<>(); // under lock
    private int writing; // under lock

    private static final class Entry<I, O> {
        final I item;
        O answer; // under lock
        RuntimeException failure;
        boolean done;

        Entry(I item) {
            this.item = item;
        }
    }

    GroupCommit(Function<List<I>, List<O>> writeBatch, int writers, int maxBatch) {
        if (writers < 1 || maxBatch < 1) {
            throw new IllegalArgumentException(
                    "writers and maxBatch must be at least 1, were " + writers + " and " + maxBatch);
        }
        this.writeBatch = writeBatch;
        this.writers = writers;
        this.maxBatch = maxBatch;
    }

    /** Writes {@code item} with whatever else is queued; its answer once written. A failed batch throws for every item in it. */
    O submit(I item) {
        Entry<I, O> mine = new Entry<>(item);
        lock.lock();
        try {
            queue.add(mine);
            while (!mine.done) {
                if (writing < writers && !queue.isEmpty()) {
                    List<Entry<I, O>> batch = new ArrayList<>(Math.min(queue.size(), maxBatch));
                    while (!queue.isEmpty() && batch.size() < maxBatch) {
                        batch.add(queue.poll());
                    }
                    writing++;
                    lock.unlock();
                    List<O> answers = null;
                    RuntimeException failure = null;
                    try {
                        answers = write(batch);
                    } catch (RuntimeException e) {
                        failure = e;
                    } catch (Error e) {
                        // Every waiter must be woken, whatever went wrong; the error reaches each of them.
                        failure = new IllegalStateException("writing a batch failed: " + e, e);
                    } finally {
                        lock.lock();
                        writing--;
                    }
                    for (int i = 0; i < batch.size(); i++) {
                        Entry<I, O> e = batch.get(i);
                        e.answer = answers == null ? null : answers.get(i);
                        e.failure = failure;
                        e.done = true;
                    }
                    written.signalAll();
                } else {
                    // A writer is about to hand back this item's answer, or free up: either signals.
                    written.awaitUninterruptibly();
                }
            }
            if (mine.failure != null) {
                throw mine.failure;
            }
            return mine.answer;
        } finally {
            lock.unlock();
        }
    }

    /** Items waiting for a writer (for tests and diagnostics). */
    int queued() {
        lock.lock();
        try {
            return queue.size();
        } finally {
            lock.unlock();
        }
    }

    private List<O> write(List<Entry<I, O>> batch) {
        List<I> items = new ArrayList<>(batch.size());
        batch.forEach(e -> items.add(e.item));
        List<O> answers = writeBatch.apply(items);
        if (answers.size() != items.size()) {
            throw new IllegalStateException("a batch of " + items.size() + " gave " + answers.size() + " answers");
        }
        return answers;
    }
}
