package dev.ax.scheduler;

import java.time.Duration;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * In-JVM wake-ups, so that a run fired on this node is claimed within milliseconds instead of
 * at the next recheck, and a task edited here is rescheduled at once. Work created on other nodes
 * is found by the bounded rechecks; signals only make the common case fast.
 */
public final class Signals {
    private final Flag work = new Flag();
    private final Flag tasks = new Flag();
    private final Flag workflows = new Flag();
    private volatile boolean closed;
    private volatile boolean draining;

    /** The node is stopping: waiters return at once, so no long poll outlives the database pool. */
    public void close() {
        closed = true;
        work.raise();
        tasks.raise();
        workflows.raise();
    }

    public boolean isClosed() {
        return closed;
    }

    /** The node is going away: it hands out no more work; long polls waiting now return empty at once. */
    public void drain() {
        draining = true;
        work.raise();
    }

    public boolean isDraining() {
        return draining;
    }

    public void workAvailable() {
        work.raise();
    }

    /** Waits until {@link #workAvailable} is called or {@code max} passes. */
    public void awaitWork(long generationSeen, Duration max) throws InterruptedException {
        work.await(generationSeen, max);
    }

    public long workGeneration() {
        return work.generation();
    }

    public void tasksChanged() {
        tasks.raise();
    }

    public long tasksGeneration() {
        return tasks.generation();
    }

    public void awaitTasks(long generationSeen, Duration max) throws InterruptedException {
        tasks.await(generationSeen, max);
    }

    /** A workflow node's run ended, or a workflow changed: the workflow loop looks at once. */
    public void workflowsChanged() {
        workflows.raise();
    }

    public long workflowsGeneration() {
        return workflows.generation();
    }

    public void awaitWorkflows(long generationSeen, Duration max) throws InterruptedException {
        workflows.await(generationSeen, max);
    }

    /** A counter with a condition: waiters pass the generation they saw, so no raise is missed between a check and the wait. */
    private static final class Flag {
        private final ReentrantLock lock = new ReentrantLock();
        private final Condition changed = lock.newCondition();
        private long generation;

        void raise() {
            lock.lock();
            try {
                generation++;
                changed.signalAll();
            } finally {
                lock.unlock();
            }
        }

        long generation() {
            lock.lock();
            try {
                return generation;
            } finally {
                lock.unlock();
            }
        }

        void await(long seen, Duration max) throws InterruptedException {
            long nanos = max.toNanos();
            lock.lock();
            try {
                while (generation == seen && nanos > 0) {
                    nanos = changed.awaitNanos(nanos);
                }
            } finally {
                lock.unlock();
            }
        }
    }
}
