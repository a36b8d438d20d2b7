package dev.ax.sdk;

/**
 * Pause between attempts to reach the server: 100 ms, doubling, capped at 5 s; {@link #reset()} after a success.
 * Not thread-safe: each retrying loop owns one. (The same rule as the shell executor's, which is internal to it.)
 */
final class Backoff {

    static final long FIRST_MILLIS = 100;
    static final long MAX_MILLIS = 5_000;

    private long nextMillis = FIRST_MILLIS;

    long next() {
        long pause = nextMillis;
        nextMillis = Math.min(nextMillis * 2, MAX_MILLIS);
        return pause;
    }

    /** Sleeps for {@link #next()}; interruptible, so closing never waits out a pause. */
    void pause() throws InterruptedException {
        Thread.sleep(next());
    }

    void reset() {
        nextMillis = FIRST_MILLIS;
    }
}
