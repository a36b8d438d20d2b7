package dev.ax.scheduler;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A tiny, unkillable shell around a {@code tick()}: the loop never dies of an exception (each
 * is logged and counted; tests assert the count stays zero), waits interruptibly between ticks,
 * and tells a requested shutdown apart from an unexpected interrupt. Tests call the tick
 * directly instead of starting the thread.
 */
public final class LoopRunner implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(LoopRunner.class);

    @FunctionalInterface
    public interface Tick {
        void tick() throws Exception;
    }

    @FunctionalInterface
    public interface Pause {
        void await() throws InterruptedException;
    }

    static final long ERROR_BACKOFF_MILLIS = 500;

    private final String name;
    private final Tick tick;
    private final Pause pause;
    private final AtomicLong errors = new AtomicLong();
    private final AtomicLong ticks = new AtomicLong();
    private final AtomicReference<Throwable> lastError = new AtomicReference<>();
    private volatile boolean stopping;
    private volatile boolean paused;
    /** True while the loop waits between ticks (the only time close() may interrupt it). */
    private volatile boolean waiting;
    /** System.nanoTime() of the last tick that returned normally (or of start()): the watchdog's heartbeat. */
    private volatile long lastTickNanos = System.nanoTime();

    private Thread thread;

    public LoopRunner(String name, Tick tick, Pause pause) {
        this.name = name;
        this.tick = tick;
        this.pause = pause;
    }

    public synchronized LoopRunner start() {
        if (thread == null) {
            lastTickNanos = System.nanoTime();
            thread = Thread.ofPlatform().name("ax-" + name).daemon(true).start(this::run);
        }
        return this;
    }

    private void run() {
        while (!stopping) {
            if (!paused) {
                try {
                    tick.tick();
                    ticks.incrementAndGet();
                    lastTickNanos = System.nanoTime();
                } catch (Throwable t) {
                    errors.incrementAndGet();
                    lastError.set(t);
                    LOG.error("{} loop: tick failed; going on", name, t);
                }
            }
            // Announce the wait before the last look at `stopping`: close() interrupts only a waiting
            // loop, never a tick (an interrupt inside JDBC closes the connection under the tick).
            waiting = true;
            if (stopping) {
                break;
            }
            try {
                pause.await();
            } catch (InterruptedException e) {
                if (!stopping) {
                    LOG.warn("{} loop: interrupted unexpectedly; going on", name);
                }
            } catch (Throwable t) {
                // Deciding how long to wait can fail too (the database is down): count it, back off, go on.
                errors.incrementAndGet();
                lastError.set(t);
                LOG.error("{} loop: wait failed; going on", name, t);
                backOff();
            } finally {
                waiting = false;
            }
        }
        LOG.debug("{} loop stopped", name);
    }

    private void backOff() {
        try {
            Thread.sleep(ERROR_BACKOFF_MILLIS);
        } catch (InterruptedException e) {
            // stopping, or woken early: either way the loop condition decides
        }
    }

    /** A paused loop keeps its thread but skips ticks (an operator's or a test's switch). */
    public void setPaused(boolean paused) {
        this.paused = paused;
    }

    public long errors() {
        return errors.get();
    }

    public long ticks() {
        return ticks.get();
    }

    /**
     * {@link System#nanoTime()} when a tick last completed without an error (or when the loop
     * started). A paused, stuck or always-failing loop lets it age; the watchdog compares it to now.
     */
    public long lastTickNanos() {
        return lastTickNanos;
    }

    public Throwable lastError() {
        return lastError.get();
    }

    @Override
    public void close() {
        Thread t;
        synchronized (this) {
            stopping = true;
            t = thread;
        }
        if (t == null) {
            return;
        }
        if (waiting) {
            t.interrupt();
        }
        try {
            t.join(5_000);
            if (t.isAlive()) {
                // A tick stuck for seconds (a hung database call): interrupt it after all.
                t.interrupt();
                t.join(1_000);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public String toString() {
        return "loop " + name + " (ticks " + ticks + ", errors " + errors + ")";
    }
}
