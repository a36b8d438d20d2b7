package dev.ax.alerts;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.domain.schedule.IntervalSchedule;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class SlotAuditTest {
    static final Instant T = Instant.parse("2026-03-01T02:00:00Z");
    static final List<Instant> FIVE =
            List.of(T, T.plusSeconds(60), T.plusSeconds(120), T.plusSeconds(180), T.plusSeconds(240));

    @Test
    void slots_of_an_interval_between_two_times_exclude_the_start() {
        assertThat(SlotAudit.slots(new IntervalSchedule(60, null), T, T.plusSeconds(180)))
                .containsExactly(T.plusSeconds(60), T.plusSeconds(120), T.plusSeconds(180));
    }

    @Test
    void one_run_per_slot_is_clean() {
        var runs = List.of(run(1, 0), run(2, 60), run(3, 120), run(4, 180), run(5, 240));
        assertThat(SlotAudit.audit(FIVE, runs, SlotAudit.Skips.NONE).clean()).isTrue();
    }

    @Test
    void two_runs_for_one_slot_are_a_duplicate_execution() {
        var runs = List.of(run(1, 0), run(2, 60), run(7, 60), run(3, 120), run(4, 180), run(5, 240));
        var f = SlotAudit.audit(FIVE, runs, SlotAudit.Skips.NONE);
        assertThat(f.duplicates()).isEqualTo(Map.of(T.plusSeconds(60), List.of(2L, 7L)));
        assertThat(f.missed()).isEmpty();
    }

    @Test
    void a_run_at_a_time_that_is_no_slot_is_a_stray() {
        var runs = List.of(run(1, 0), run(2, 60), run(9, 90), run(3, 120), run(4, 180), run(5, 240));
        assertThat(SlotAudit.audit(FIVE, runs, SlotAudit.Skips.NONE).strays()).containsExactly(run(9, 90));
    }

    @Test
    void a_slot_without_a_run_is_missed_unless_the_misfire_policy_recorded_it() {
        var runs = List.of(run(1, 0), run(3, 120), run(5, 240));
        assertThat(SlotAudit.audit(FIVE, runs, SlotAudit.Skips.NONE).missed())
                .containsExactly(T.plusSeconds(60), T.plusSeconds(180));
        var skippedOne = new SlotAudit.Skips(Set.of(T.plusSeconds(60)), List.of());
        assertThat(SlotAudit.audit(FIVE, runs, skippedOne).missed()).containsExactly(T.plusSeconds(180));
        var skippedRange = new SlotAudit.Skips(
                Set.of(), List.<Instant[]>of(new Instant[] {T.plusSeconds(30), T.plusSeconds(200)}));
        assertThat(SlotAudit.audit(FIVE, runs, skippedRange).missed()).isEmpty();
    }

    private static SlotAudit.Run run(long id, long secondsAfterT) {
        return new SlotAudit.Run(id, T.plusSeconds(secondsAfterT));
    }
}
