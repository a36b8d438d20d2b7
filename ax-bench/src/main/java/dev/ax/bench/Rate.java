package dev.ax.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/** Operations per second of a plain loop on several platform threads at once: the baselines AX is compared with. */
final class Rate {
    private Rate() {}

    /** One thread's loop: does its operation until {@code endNanos} ({@link System#nanoTime()}) and returns how many it did. */
    interface Loop {
        long until(long endNanos) throws Exception;
    }

    /** A rate and what the whole machine spent on it: {@code boxCores} busy on average, 1.0 = one core. */
    record Measured(double perSecond, double boxCores) {
        static final Measured NONE = new Measured(Double.NaN, Double.NaN);

        /** Milliseconds of the machine's CPU per operation. */
        double cpuMsPerOp() {
            return boxCores * 1000 / perSecond;
        }
    }

    /** As {@link #perSecond}, with the machine's CPU over the same time. */
    static Measured measured(int threads, int seconds, Loop loop) throws Exception {
        Proc.Cpu start = Proc.Cpu.now();
        double rate = perSecond(threads, seconds, loop);
        return new Measured(rate, start.boxCoresUntil(Proc.Cpu.now()));
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
