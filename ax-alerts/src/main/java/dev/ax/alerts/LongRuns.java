package dev.ax.alerts;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

/** "Far longer than usual": a pure judgement over the durations of a task's recent successes. */
final class LongRuns {
    private LongRuns() {}

    /** The nearest-rank 95th percentile; empty for no samples. */
    static Optional<Duration> p95(List<Duration> samples) {
        if (samples.isEmpty()) {
            return Optional.empty();
        }
        List<Duration> sorted = samples.stream().sorted().toList();
        int rank = (int) Math.ceil(0.95 * sorted.size());
        return Optional.of(sorted.get(Math.max(0, rank - 1)));
    }

    /**
     * How long a run may take before it is unusually long: {@code factor × p95}, at least {@code min};
     * empty while there are fewer than {@code minSamples} successes to judge by.
     */
    static Optional<Duration> threshold(List<Duration> successes, double factor, Duration min, int minSamples) {
        if (successes.size() < minSamples) {
            return Optional.empty();
        }
        Duration scaled =
                Duration.ofMillis(Math.round(p95(successes).orElseThrow().toMillis() * factor));
        return Optional.of(scaled.compareTo(min) < 0 ? min : scaled);
    }
}
