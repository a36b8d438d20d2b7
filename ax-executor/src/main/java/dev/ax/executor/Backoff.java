package dev.ax.executor;

/**
 * Exponential pause between attempts to reach the server: 100 ms, doubling, capped at 5 s; {@link #reset()} after a
 * success. Not thread-safe: each retrying loop owns one. The executor's loops and the SDK's use it alike.
 */
public final class Backoff {

    public static final long FIRST_MILLIS = 100;
    public static final long MAX_MILLIS = 5_000;

    private long nextMillis = FIRST_MILLIS;

    /** The pause to take now; the one after it is twice as long (up to the cap). */
    public long next() {
        long pause = nextMillis;
        nextMillis = Math.min(nextMillis * 2, MAX_MILLIS);
        return pause;
    }

    /** Sleeps for {@link #next()}; interruptible so that shutting down never waits out a pause. */
    public void pause() throws InterruptedException {
        Thread.sleep(next());
    }

    public void reset() {
        nextMillis = FIRST_MILLIS;
    }
}
