package dev.ax.domain.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ax.domain.schedule.CronSchedule;
import dev.ax.domain.task.BackfillRequest;
import dev.ax.domain.task.ValidationException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class BackfillSlotsTest {
    static final ZoneId SHANGHAI = ZoneId.of("Asia/Shanghai");

    @Test
    void a_daily_task_has_one_slot_per_business_date_in_its_zone() {
        List<Instant> slots = BackfillSlots.of(
                CronSchedule.parse("0 2 * * *", SHANGHAI),
                SHANGHAI,
                LocalDate.parse("2026-10-01"),
                LocalDate.parse("2026-10-31"),
                false);
        assertThat(slots).hasSize(31);
        assertThat(slots.getFirst()).isEqualTo(Instant.parse("2026-09-30T18:00:00Z"));
        assertThat(slots.getLast()).isEqualTo(Instant.parse("2026-10-30T18:00:00Z"));
    }

    @Test
    void a_slot_at_midnight_of_the_first_day_counts_and_newest_first_reverses() {
        ZoneId utc = ZoneId.of("UTC");
        List<Instant> slots = BackfillSlots.of(
                CronSchedule.parse("0 0 * * *", utc),
                utc,
                LocalDate.parse("2026-10-01"),
                LocalDate.parse("2026-10-03"),
                true);
        assertThat(slots)
                .containsExactly(
                        Instant.parse("2026-10-03T00:00:00Z"),
                        Instant.parse("2026-10-02T00:00:00Z"),
                        Instant.parse("2026-10-01T00:00:00Z"));
    }

    @Test
    void an_oversized_range_is_refused() {
        ZoneId utc = ZoneId.of("UTC");
        assertThatThrownBy(() -> BackfillSlots.of(
                        CronSchedule.parse("* * * * *", utc),
                        utc,
                        LocalDate.parse("2026-01-01"),
                        LocalDate.parse("2026-12-31"),
                        false))
                .hasMessageContaining("split it");
    }

    @Test
    void a_request_is_validated_field_by_field() {
        assertThatThrownBy(() -> BackfillRequest.parse(Map.of(
                        "from",
                        "2026-10-31",
                        "to",
                        "2026-10-01",
                        "parallelism",
                        0,
                        "reprocess",
                        "some",
                        "order",
                        "random")))
                .isInstanceOf(ValidationException.class)
                .satisfies(e -> assertThat(((ValidationException) e).errors())
                        .extracting(f -> f.field())
                        .containsExactlyInAnyOrder("to", "parallelism", "reprocess", "order"));
        BackfillRequest r = BackfillRequest.parse(Map.of("from", "2026-10-01", "to", "2026-10-31", "parallelism", 2));
        assertThat(r.reprocess()).isEqualTo("none");
        assertThat(r.newestFirst()).isFalse();
    }
}
