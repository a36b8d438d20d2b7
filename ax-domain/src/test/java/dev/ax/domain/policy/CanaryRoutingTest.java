package dev.ax.domain.policy;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class CanaryRoutingTest {
    /** Pinned buckets: a change of the hash would move running canaries' slots to another version. */
    @ParameterizedTest(name = "{0} -> bucket {1}")
    @CsvSource({
        "2026-11-29T02:00:00Z, 42",
        "2026-11-29T02:01:00Z, 96",
        "manual:0b1c, 92",
    })
    void buckets_are_pinned(String key, String bucket) {
        assertThat(CanaryRouting.bucket(key)).isEqualTo(Integer.parseInt(bucket));
    }

    @Test
    void the_same_key_always_maps_to_the_same_version() {
        for (String key : List.of("2026-11-29T02:00:00Z", "backfill:x", "")) {
            boolean first = CanaryRouting.pick(key, 10);
            for (int i = 0; i < 5; i++) {
                assertThat(CanaryRouting.pick(key, 10)).isEqualTo(first);
            }
        }
    }

    @Test
    void a_larger_share_keeps_every_run_of_a_smaller_one() {
        List<String> keys = slots(Instant.parse("2026-11-29T00:00:00Z"), 1000);
        for (String key : keys) {
            if (CanaryRouting.pick(key, 10)) {
                assertThat(CanaryRouting.pick(key, 50)).isTrue();
            }
        }
    }

    /**
     * 100 minutely slots at 10 %: like 100 coin flips of p = 0.1, the count has a standard deviation of 3,
     * so the documented margin is ±7 (over 2 sd); the 30 windows here range from 6 to 17.
     */
    @Test
    void ten_percent_of_100_slots_is_10_within_the_documented_margin() {
        for (int day = 0; day < 30; day++) {
            List<String> keys = slots(Instant.parse("2026-11-01T02:00:00Z").plus(Duration.ofDays(day)), 100);
            long canary = keys.stream().filter(k -> CanaryRouting.pick(k, 10)).count();
            assertThat(canary).as("day %d", day).isBetween(10L - MARGIN, 10L + MARGIN);
        }
    }

    static final long MARGIN = 7;

    @Test
    void by_count_the_next_n_runs_go_to_the_canary() {
        assertThat(IntStream.range(0, 6)
                        .mapToObj(i -> CanaryRouting.pickByCount(i, 3))
                        .toList())
                .containsExactly(true, true, true, false, false, false);
    }

    @Test
    void all_labels_of_a_task_must_be_on_the_executor() {
        assertThat(EnvironmentMatch.matches(List.of("prod"), List.of("prod"))).isTrue();
        assertThat(EnvironmentMatch.matches(List.of("prod"), List.of("test"))).isFalse();
        assertThat(EnvironmentMatch.matches(List.of("prod"), List.of())).isFalse();
        assertThat(EnvironmentMatch.matches(List.of("prod", "eu"), List.of("prod")))
                .isFalse();
        assertThat(EnvironmentMatch.matches(List.of("prod", "eu"), List.of("eu", "prod", "big")))
                .isTrue();
        assertThat(EnvironmentMatch.matches(List.of(), List.of("test"))).isTrue();
        assertThat(EnvironmentMatch.matches(List.of(), List.of())).isTrue();
    }

    static List<String> slots(Instant from, int n) {
        return IntStream.range(0, n)
                .mapToObj(i -> from.plus(Duration.ofMinutes(i)).toString())
                .toList();
    }
}
