package dev.ax.scheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class HistoryRetentionTest {
    /** 10,000 runs per second: 10,000 per round of 1 s, in batches of 500. */
    static final HistoryRetention TEN_THOUSAND_A_SECOND =
            HistoryRetention.DEFAULT.withEvery(Duration.ofSeconds(1)).withPerTick(10_000);

    @Test
    void deletes_are_paced_to_per_tick_runs_per_round_spread_evenly() {
        HistoryRetention r = TEN_THOUSAND_A_SECOND;
        assertThat(r.maxRunsPerSecond()).isEqualTo(10_000.0);
        // 500 runs are due 50 ms into the round: a batch that took 10 ms waits 40 ms more.
        assertThat(r.pause(500, Duration.ofMillis(10))).isEqualTo(Duration.ofMillis(40));
        assertThat(r.pause(5_000, Duration.ofMillis(100))).isEqualTo(Duration.ofMillis(400));
        // Behind the pace (slow deletes): no wait at all.
        assertThat(r.pause(500, Duration.ofMillis(80))).isZero();
        assertThat(r.pause(0, Duration.ZERO)).isZero();
    }

    @Test
    void the_default_paces_at_twice_the_rate_ax_is_built_for() {
        assertThat(HistoryRetention.DEFAULT.maxRunsPerSecond()).isEqualTo(20_000.0);
        assertThat(HistoryRetention.DEFAULT.pause(200_000, Duration.ofSeconds(2)))
                .isEqualTo(Duration.ofSeconds(8));
    }

    @Test
    void a_per_tick_below_a_batch_is_refused() {
        assertThatThrownBy(() -> HistoryRetention.DEFAULT.withPerTick(100))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("perTick at least batch");
    }
}
