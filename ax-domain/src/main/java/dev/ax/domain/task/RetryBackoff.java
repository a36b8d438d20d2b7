package dev.ax.domain.task;

/**
 * How the wait between attempts grows. {@code FIXED}: always {@code retryIntervalSeconds}.
 * {@code EXPONENTIAL}: {@code retryIntervalSeconds * 2^(attempt-1)}, capped at
 * {@code retryMaxIntervalSeconds}. {@code jitter} (0..1) spreads each wait by up to that
 * fraction either way, so a fleet of failed runs does not retry in lock step.
 */
public record RetryBackoff(boolean exponential, Long maxIntervalSeconds, double jitter) {
    public static final RetryBackoff FIXED = new RetryBackoff(false, null, 0);

    public RetryBackoff {
        if (jitter < 0 || jitter > 1) {
            throw new IllegalArgumentException("jitter must be between 0 and 1, was " + jitter);
        }
    }
}
