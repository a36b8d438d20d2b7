package dev.ax.domain.task;

import dev.ax.domain.run.FailureKind;
import java.util.Set;

/**
 * Which failures are worth another attempt ({@code policy.retryable}). JSON forms:
 * {@code true} (the default: every failure), {@code false} (none), or
 * {@code {"exitCodes":[1,75], "timeout":true, "executorLost":true}} where an empty or absent
 * {@code exitCodes} means every non-zero exit code.
 */
public record RetryRules(boolean enabled, Set<Integer> exitCodes, boolean timeout, boolean executorLost) {
    public static final RetryRules ALL = new RetryRules(true, Set.of(), true, true);
    public static final RetryRules NONE = new RetryRules(false, Set.of(), false, false);

    public RetryRules {
        exitCodes = exitCodes == null ? Set.of() : Set.copyOf(exitCodes);
    }

    public boolean isRetryable(FailureKind kind, Integer exitCode) {
        if (!enabled) {
            return false;
        }
        return switch (kind) {
            case EXIT_CODE -> exitCodes.isEmpty() || (exitCode != null && exitCodes.contains(exitCode));
            case TIMEOUT -> timeout;
            case EXECUTOR_LOST -> executorLost;
            case START_ERROR -> false;
            case HTTP_STATUS, CONNECTION -> true;
        };
    }
}
