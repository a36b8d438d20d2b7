package dev.ax.domain.policy;

import dev.ax.domain.run.FailureKind;
import dev.ax.domain.task.Policy;
import java.time.Duration;

/**
 * After a failed attempt: another attempt after a delay, or the end. A pure function of the
 * task's policy and the failure.
 */
public record RetryDecision(boolean retry, Duration delay, String reason) {

    public static RetryDecision decide(Policy policy, int attempt, FailureKind kind, Integer exitCode) {
        if (!policy.retryable().isRetryable(kind, exitCode)) {
            return new RetryDecision(false, Duration.ZERO, kind + (exitCode == null ? "" : " " + exitCode) + " is not retryable");
        }
        if (attempt >= policy.maxAttempts()) {
            return new RetryDecision(false, Duration.ZERO, "attempt " + attempt + " of " + policy.maxAttempts() + ": retries exhausted");
        }
        return new RetryDecision(true, Duration.ofSeconds(policy.retryIntervalSeconds()),
                "attempt " + (attempt + 1) + " of " + policy.maxAttempts() + " in " + policy.retryIntervalSeconds() + "s");
    }
}
