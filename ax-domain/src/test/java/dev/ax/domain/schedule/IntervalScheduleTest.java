package dev.ax.domain.schedule;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class IntervalScheduleTest {

    @ParameterizedTest(name = "every {0}s from {1}, after {2}")
    @CsvSource(delimiter = '|', textBlock = """
            # before the anchor, the anchor itself is the first slot
            3600 | 2026-01-01T00:00:00Z     | 2025-12-31T23:00:00Z     | 2026-01-01T00:00:00Z
            # strictly after: a slot equal to `after` is not returned
            3600 | 2026-01-01T00:00:00Z     | 2026-01-01T00:00:00Z     | 2026-01-01T01:00:00Z
            3600 | 2026-01-01T00:00:00Z     | 2026-01-01T00:59:59.999Z | 2026-01-01T01:00:00Z
            3600 | 2026-01-01T00:00:00Z     | 2026-01-01T01:00:00Z     | 2026-01-01T02:00:00Z
            90   | 2026-01-01T00:00:00Z     | 2026-03-15T12:34:56Z     | 2026-03-15T12:36:00Z
            # slots keep the anchor's phase, so every node computes the same fire keys
            3600 | 2026-01-01T00:20:00Z     | 2026-06-01T08:05:00Z     | 2026-06-01T08:20:00Z
            # a sub-second anchor keeps its phase too: the slot at 01.700 is not skipped
            1    | 2026-01-01T00:00:00.700Z | 2026-01-01T00:00:01.200Z | 2026-01-01T00:00:01.700Z
            10   | 2026-01-01T00:00:00.700Z | 2026-01-01T00:00:10.699Z | 2026-01-01T00:00:10.700Z
            10   | 2026-01-01T00:00:00.700Z | 2026-01-01T00:00:10.700Z | 2026-01-01T00:00:20.700Z
            """)
    void the_next_slot_is_the_first_anchor_multiple_strictly_after(
            long intervalSeconds, Instant anchor, Instant after, Instant expected) {
        assertThat(new IntervalSchedule(intervalSeconds, anchor).nextAfter(after))
                .contains(expected);
    }

    @Test
    void without_a_start_the_slots_are_anchored_at_the_unix_epoch() {
        IntervalSchedule hourly = new IntervalSchedule(3600, null);

        assertThat(hourly.nextAfter(Instant.parse("2026-01-01T00:30:00Z")))
                .contains(Instant.parse("2026-01-01T01:00:00Z"));
        assertThat(hourly.nextAfter(Instant.parse("1969-12-31T23:30:00Z"))).contains(Instant.EPOCH);
    }

    @Test
    void iterating_moves_forward_by_exactly_one_interval() {
        IntervalSchedule schedule = new IntervalSchedule(7, Instant.parse("2026-01-01T00:00:03Z"));
        Instant slot = schedule.nextAfter(Instant.parse("2026-01-01T00:00:00Z")).orElseThrow();

        for (int i = 0; i < 1000; i++) {
            Instant next = schedule.nextAfter(slot).orElseThrow();
            assertThat(next).isEqualTo(slot.plusSeconds(7));
            slot = next;
        }
    }

    @Test
    void past_the_last_representable_instant_there_is_no_slot_rather_than_an_exception() {
        assertThat(new IntervalSchedule(60, null).nextAfter(Instant.MAX)).isEmpty();
        assertThat(new IntervalSchedule(Long.MAX_VALUE, null).nextAfter(Instant.EPOCH))
                .isEmpty();
    }

    @Test
    void the_interval_must_be_positive() {
        assertThatThrownBy(() -> new IntervalSchedule(0, null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("intervalSeconds must be positive, was 0");
    }
}
