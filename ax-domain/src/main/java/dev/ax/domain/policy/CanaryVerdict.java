package dev.ax.domain.policy;

import java.util.Locale;

/**
 * Whether a canary is rolled back automatically: once it has ended at least {@code minRuns} runs,
 * when its failure rate exceeds the stable version's (over the same period) by more than
 * {@code marginPoints} percentage points. A stable version with no ended run counts as 0 %
 * failures: a canary that fails while nothing else ran is not given the benefit of the doubt.
 * Pure: the caller counts the runs and acts on the answer.
 */
public record CanaryVerdict(boolean rollback, double canaryFailurePercent, double stableFailurePercent, String reason) {
    public static final int DEFAULT_MARGIN_POINTS = 20;
    public static final int DEFAULT_MIN_RUNS = 3;

    public static CanaryVerdict decide(
            long canaryOk, long canaryFailed, long stableOk, long stableFailed, int marginPoints, int minRuns) {
        long canaryDone = canaryOk + canaryFailed;
        long stableDone = stableOk + stableFailed;
        double canary = canaryDone == 0 ? 0 : 100.0 * canaryFailed / canaryDone;
        double stable = stableDone == 0 ? 0 : 100.0 * stableFailed / stableDone;
        String numbers = String.format(
                Locale.ROOT,
                "canary %d of %d failed (%.0f%%), stable %d of %d failed (%.0f%%), margin %d points",
                canaryFailed,
                canaryDone,
                canary,
                stableFailed,
                stableDone,
                stable,
                marginPoints);
        if (canaryDone < minRuns) {
            return new CanaryVerdict(
                    false,
                    canary,
                    stable,
                    "keep: " + canaryDone + " of at least " + minRuns + " canary runs ended; " + numbers);
        }
        if (canary > stable + marginPoints) {
            return new CanaryVerdict(true, canary, stable, "rollback: " + numbers);
        }
        return new CanaryVerdict(false, canary, stable, "keep: " + numbers);
    }
}
