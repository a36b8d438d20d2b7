package dev.ax.executor;

/**
 * Exponential pause between attempts to reach the server: 100 ms, doubling, capped at 5 s; {@link #reset()} after a
 * success. Not thread-safe: each retrying loop owns one.
 */
final class Backoff {

    static final long FIRST_MILLIS = 100;
    static final long MAX_MILLIS = 5_000;

    private long nextMillis = FIRST_MILLIS;

    /** The pause to take now; the one after it is twice as long (up to the cap). */
    long next() {
        long pause = nextMillis;
        nextMillis = Math.min(nextMillis * 2, MAX_MILLIS);
        return pause;
    }

    /** Sleeps for {@link #next()}; interruptible so that shutting down never waits out a pause. */
    void pause() throws InterruptedException {
        Thread.sleep(next());
    }

    void reset() {
        nextMillis = FIRST_MILLIS;
    }
}
