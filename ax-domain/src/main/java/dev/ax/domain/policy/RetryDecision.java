package dev.ax.domain.policy;

import dev.ax.domain.run.FailureKind;
import dev.ax.domain.task.Policy;
import dev.ax.domain.task.RetryBackoff;
import java.time.Duration;
import java.util.Locale;

/**
 * After a failed attempt: another attempt after a delay, or the end. A pure function of the
 * task's policy, the failure and — for jitter — a number in [0, 1) that the caller draws (tests
 * pass a fixed one).
 */
public record RetryDecision(boolean retry, Duration delay, String reason) {

    public static RetryDecision decide(Policy policy, int attempt, FailureKind kind, Integer exitCode) {
        return decide(policy, attempt, kind, exitCode, 0.5);
    }

    public static RetryDecision decide(
            Policy policy, int attempt, FailureKind kind, Integer exitCode, double unitRandom) {
        if (!policy.retryable().isRetryable(kind, exitCode)) {
            return new RetryDecision(
                    false, Duration.ZERO, kind + (exitCode == null ? "" : " " + exitCode) + " is not retryable");
        }
        if (attempt >= policy.maxAttempts()) {
            return new RetryDecision(
                    false, Duration.ZERO, "attempt " + attempt + " of " + policy.maxAttempts() + ": retries exhausted");
        }
        Duration delay = delay(policy.retryIntervalSeconds(), policy.backoff(), attempt, unitRandom);
        return new RetryDecision(
                true, delay, "attempt " + (attempt + 1) + " of " + policy.maxAttempts() + " in " + seconds(delay));
    }

    /** The wait after failed attempt {@code attempt} (1-based). */
    static Duration delay(long intervalSeconds, RetryBackoff backoff, int attempt, double unitRandom) {
        double seconds = intervalSeconds;
        if (backoff.exponential()) {
            // 2^(attempt-1), with the exponent bounded so a long retry chain cannot overflow.
            seconds = intervalSeconds * Math.pow(2, Math.min(attempt - 1, 40));
        }
        seconds = seconds * (1 + backoff.jitter() * (2 * unitRandom - 1));
        // The cap holds after the jitter: "at most N seconds" means at most N seconds.
        if (backoff.maxIntervalSeconds() != null) {
            seconds = Math.min(seconds, backoff.maxIntervalSeconds());
        }
        return Duration.ofMillis(Math.round(Math.max(0, seconds) * 1000));
    }

    private static String seconds(Duration d) {
        return d.toMillis() % 1000 == 0
                ? d.toSeconds() + "s"
                : String.format(Locale.ROOT, "%.1fs", d.toMillis() / 1000.0);
    }
}
