package dev.ax.domain.task;

import dev.ax.domain.run.FailureKind;
import java.util.Set;

/**
 * Which failures are worth another attempt ({@code policy.retryable}). JSON forms:
 * {@code true} (the default: every failure), {@code false} (none), or
 * {@code {"exitCodes":[1,75], "timeout":true, "executorLost":true, "httpStatuses":[409,503]}} where an
 * empty or absent {@code exitCodes} means every non-zero exit code, and an empty or absent
 * {@code httpStatuses} means 429 and every 5xx (other statuses are not worth another try).
 */
public record RetryRules(
        boolean enabled, Set<Integer> exitCodes, boolean timeout, boolean executorLost, Set<Integer> httpStatuses) {
    public static final RetryRules ALL = new RetryRules(true, Set.of(), true, true, Set.of());
    public static final RetryRules NONE = new RetryRules(false, Set.of(), false, false, Set.of());

    public RetryRules {
        exitCodes = exitCodes == null ? Set.of() : Set.copyOf(exitCodes);
        httpStatuses = httpStatuses == null ? Set.of() : Set.copyOf(httpStatuses);
    }

    public RetryRules(boolean enabled, Set<Integer> exitCodes, boolean timeout, boolean executorLost) {
        this(enabled, exitCodes, timeout, executorLost, Set.of());
    }

    public boolean isRetryable(FailureKind kind, Integer exitCode) {
        if (!enabled) {
            return false;
        }
        return switch (kind) {
            case EXIT_CODE -> exitCodes.isEmpty() || (exitCode != null && exitCodes.contains(exitCode));
            case TIMEOUT -> timeout;
            case EXECUTOR_LOST -> executorLost;
            case START_ERROR, FATAL -> false;
            case HTTP_STATUS ->
                exitCode != null
                        && (httpStatuses.isEmpty()
                                ? exitCode == 429 || exitCode >= 500
                                : httpStatuses.contains(exitCode));
            case CONNECTION -> true;
        };
    }
}
