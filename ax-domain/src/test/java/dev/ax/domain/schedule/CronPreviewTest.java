package dev.ax.domain.schedule;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.time.ZoneId;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class CronPreviewTest {
    private static final Instant NEW_YEAR = Instant.parse("2026-01-01T00:00:00Z");

    @Test
    void lists_the_next_slots_in_order_strictly_after_the_start() {
        CronSchedule schedule = CronSchedule.parse("0 2 * * *", ZoneId.of("Asia/Shanghai"));

        assertThat(CronPreview.preview(schedule, Instant.parse("2026-11-29T10:00:00Z"), 3))
                .containsExactly(
                        Instant.parse("2026-11-29T18:00:00Z"),
                        Instant.parse("2026-11-30T18:00:00Z"),
                        Instant.parse("2026-12-01T18:00:00Z"));
    }

    @ParameterizedTest(name = "count {0}")
    @ValueSource(ints = {1, 100})
    void accepts_counts_from_one_to_one_hundred(int count) {
        assertThat(CronPreview.preview(CronSchedule.parse("* * * * *", ZoneId.of("UTC")), NEW_YEAR, count))
                .hasSize(count)
                .isSorted()
                .doesNotHaveDuplicates();
    }

    @ParameterizedTest(name = "count {0}")
    @ValueSource(ints = {-1, 0, 101, Integer.MAX_VALUE})
    void refuses_counts_outside_one_to_one_hundred(int count) {
        assertThatThrownBy(() -> CronPreview.preview(Schedule.NEVER, NEW_YEAR, count))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("count must be between 1 and 100");
    }

    @Test
    void a_schedule_that_never_fires_previews_nothing() {
        assertThat(CronPreview.preview(CronSchedule.parse("0 0 30 2 *", ZoneId.of("UTC")), NEW_YEAR, 5))
                .isEmpty();
    }

    @Test
    void stops_early_when_the_schedule_runs_out() {
        Instant last = NEW_YEAR.plusSeconds(120);
        Schedule twoSlots = after -> after.isBefore(last) ? Optional.of(after.plusSeconds(60)) : Optional.empty();

        assertThat(CronPreview.preview(twoSlots, NEW_YEAR, 10))
                .containsExactly(NEW_YEAR.plusSeconds(60), NEW_YEAR.plusSeconds(120));
    }

    @Test
    void works_for_any_schedule_not_only_cron() {
        assertThat(CronPreview.preview(new IntervalSchedule(90, NEW_YEAR), NEW_YEAR, 2))
                .containsExactly(NEW_YEAR.plusSeconds(90), NEW_YEAR.plusSeconds(180));
    }
}
