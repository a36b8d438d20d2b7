package dev.ax.alerts;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class LongRunsTest {
    @Test
    void p95_is_the_nearest_rank() {
        List<Duration> twenty =
                IntStream.rangeClosed(1, 20).mapToObj(Duration::ofSeconds).toList();
        assertThat(LongRuns.p95(twenty)).contains(Duration.ofSeconds(19));
        assertThat(LongRuns.p95(List.of(Duration.ofSeconds(7)))).contains(Duration.ofSeconds(7));
        assertThat(LongRuns.p95(List.of())).isEmpty();
    }

    @Test
    void threshold_is_three_times_p95_but_at_least_the_minimum() {
        List<Duration> minutes = IntStream.rangeClosed(1, 20)
                .mapToObj(i -> Duration.ofMinutes(2))
                .toList();
        assertThat(LongRuns.threshold(minutes, 3, Duration.ofMinutes(1), 5)).contains(Duration.ofMinutes(6));
        List<Duration> fast = IntStream.rangeClosed(1, 20)
                .mapToObj(i -> Duration.ofSeconds(2))
                .toList();
        assertThat(LongRuns.threshold(fast, 3, Duration.ofMinutes(1), 5)).contains(Duration.ofMinutes(1));
    }

    @Test
    void no_judgement_without_enough_successes() {
        assertThat(LongRuns.threshold(
                        List.of(Duration.ofSeconds(5), Duration.ofSeconds(6)), 3, Duration.ofMinutes(1), 5))
                .isEmpty();
    }
}
