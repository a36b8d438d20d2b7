package dev.ax.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/** Operations per second of a plain loop on several platform threads at once: the baselines AX is compared with. */
final class Rate {
    private Rate() {
    }

    /** One thread's loop: does its operation until {@code endNanos} ({@link System#nanoTime()}) and returns how many it did. */
    interface Loop {
        long until(long endNanos) throws Exception;
    }

    /**
     * Runs {@code loop} on {@code threads} platform threads for {@code seconds} and returns the
     * operations per second of all of them together; the first failure of any thread is thrown
     * once all have ended.
     */
    static double perSecond(int threads, int seconds, Loop loop) throws Exception {
        AtomicLong done = new AtomicLong();
        AtomicReference<Exception> failure = new AtomicReference<>();
        long start = System.nanoTime();
        long end = start + seconds * 1_000_000_000L;
        List<Thread> ts = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            ts.add(Thread.ofPlatform().start(() -> {
                try {
                    done.addAndGet(loop.until(end));
                } catch (Exception e) {
                    failure.compareAndSet(null, e);
                }
            }));
        }
        for (Thread t : ts) {
            t.join();
        }
        if (failure.get() != null) {
            throw failure.get();
        }
        return done.get() / ((System.nanoTime() - start) / 1e9);
    }
}
