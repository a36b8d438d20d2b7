package dev.ax.domain.policy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.domain.schedule.IntervalSchedule;
import dev.ax.domain.schedule.Schedule;
import dev.ax.domain.task.MisfirePolicy;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Which due slots fire: one short test per situation and policy, with literal times. */
class CatchupTest {
    static final Schedule EVERY_MINUTE = new IntervalSchedule(60, null);
    static final Duration WINDOW = Duration.ofSeconds(60);
    static final Instant NOW = Instant.parse("2026-11-29T10:00:30Z");

    static Catchup.Plan plan(Instant firstDue, MisfirePolicy policy) {
        return Catchup.plan(EVERY_MINUTE, firstDue, NOW, WINDOW, policy, Catchup.DEFAULT_MAX_SLOTS);
    }

    static List<Instant> fired(Catchup.Plan p) {
        return p.fire().stream().map(Catchup.Slot::at).toList();
    }

    @Test
    void an_on_time_slot_fires_whatever_the_policy() {
        for (MisfirePolicy policy : MisfirePolicy.values()) {
            Catchup.Plan p = plan(Instant.parse("2026-11-29T10:00:00Z"), policy);
            assertThat(fired(p)).containsExactly(Instant.parse("2026-11-29T10:00:00Z"));
            assertThat(p.fire().getFirst().late()).isFalse();
            assertThat(p.skippedTotal()).isZero();
            assertThat(p.nextFireAt()).isEqualTo(Instant.parse("2026-11-29T10:01:00Z"));
        }
    }

    @Test
    void nothing_due_yet_fires_nothing_and_keeps_the_next_slot() {
        Catchup.Plan p = plan(Instant.parse("2026-11-29T10:01:00Z"), MisfirePolicy.FIRE_ALL);
        assertThat(p.fire()).isEmpty();
        assertThat(p.nextFireAt()).isEqualTo(Instant.parse("2026-11-29T10:01:00Z"));
    }

    @Test
    void a_slot_within_the_lookahead_fires_early_and_on_time_one_beyond_it_waits() {
        // NOW is 10:00:30; the 10:01:00 slot is 30 s ahead.
        Catchup.Plan inside = Catchup.plan(
                EVERY_MINUTE,
                Instant.parse("2026-11-29T10:01:00Z"),
                NOW,
                Duration.ofSeconds(30),
                WINDOW,
                MisfirePolicy.SKIP,
                Catchup.DEFAULT_MAX_SLOTS);
        assertThat(fired(inside)).containsExactly(Instant.parse("2026-11-29T10:01:00Z"));
        assertThat(inside.fire().getFirst().late()).isFalse();
        assertThat(inside.nextFireAt()).isEqualTo(Instant.parse("2026-11-29T10:02:00Z"));
        Catchup.Plan beyond = Catchup.plan(
                EVERY_MINUTE,
                Instant.parse("2026-11-29T10:01:00Z"),
                NOW,
                Duration.ofSeconds(29),
                WINDOW,
                MisfirePolicy.SKIP,
                Catchup.DEFAULT_MAX_SLOTS);
        assertThat(beyond.fire()).isEmpty();
        assertThat(beyond.nextFireAt()).isEqualTo(Instant.parse("2026-11-29T10:01:00Z"));
    }

    @Test
    void lateness_is_measured_from_now_not_from_the_lookahead() {
        Catchup.Plan p = Catchup.plan(
                EVERY_MINUTE,
                Instant.parse("2026-11-29T09:59:00Z"),
                NOW,
                Duration.ofSeconds(30),
                WINDOW,
                MisfirePolicy.SKIP,
                Catchup.DEFAULT_MAX_SLOTS);
        // 09:59:00 is 90 s before NOW (missed, skipped by the policy); 10:00 is on time; 10:01 is within the lookahead.
        assertThat(p.skipped()).containsExactly(Instant.parse("2026-11-29T09:59:00Z"));
        assertThat(fired(p))
                .containsExactly(Instant.parse("2026-11-29T10:00:00Z"), Instant.parse("2026-11-29T10:01:00Z"));
    }

    @Test
    void fire_once_runs_only_the_latest_missed_slot() {
        Catchup.Plan p = plan(Instant.parse("2026-11-29T09:55:00Z"), MisfirePolicy.FIRE_ONCE);
        // 09:55 .. 09:59 are older than the 60 s window; 10:00 is on time.
        assertThat(fired(p))
                .containsExactly(Instant.parse("2026-11-29T09:59:00Z"), Instant.parse("2026-11-29T10:00:00Z"));
        assertThat(p.fire().getFirst().late()).isTrue();
        assertThat(p.skipped())
                .containsExactly(
                        Instant.parse("2026-11-29T09:55:00Z"),
                        Instant.parse("2026-11-29T09:56:00Z"),
                        Instant.parse("2026-11-29T09:57:00Z"),
                        Instant.parse("2026-11-29T09:58:00Z"));
    }

    @Test
    void fire_all_runs_every_missed_slot_oldest_first() {
        Catchup.Plan p = plan(Instant.parse("2026-11-29T09:57:00Z"), MisfirePolicy.FIRE_ALL);
        assertThat(fired(p))
                .containsExactly(
                        Instant.parse("2026-11-29T09:57:00Z"),
                        Instant.parse("2026-11-29T09:58:00Z"),
                        Instant.parse("2026-11-29T09:59:00Z"),
                        Instant.parse("2026-11-29T10:00:00Z"));
        assertThat(p.skippedTotal()).isZero();
    }

    @Test
    void skip_runs_no_missed_slot_and_lists_each() {
        Catchup.Plan p = plan(Instant.parse("2026-11-29T09:57:00Z"), MisfirePolicy.SKIP);
        assertThat(fired(p)).containsExactly(Instant.parse("2026-11-29T10:00:00Z"));
        assertThat(p.skipped()).hasSize(3);
    }

    @Test
    void a_long_outage_is_summarised_after_the_listed_skips() {
        Catchup.Plan p = plan(Instant.parse("2026-11-28T10:00:00Z"), MisfirePolicy.SKIP);
        assertThat(p.skipped()).hasSize(Catchup.LISTED_SKIPS);
        assertThat(p.skippedTotal()).isEqualTo(24 * 60);
        assertThat(p.skippedMoreTo()).isEqualTo(Instant.parse("2026-11-29T09:59:00Z"));
    }

    @Test
    void the_slot_cap_stops_a_tick_and_fire_once_waits_for_the_end_of_the_missed_region() {
        Catchup.Plan p = Catchup.plan(
                EVERY_MINUTE, Instant.parse("2026-11-28T10:00:00Z"), NOW, WINDOW, MisfirePolicy.FIRE_ONCE, 100);
        assertThat(p.fire()).isEmpty();
        assertThat(p.skippedTotal()).isEqualTo(100);
        assertThat(p.nextFireAt()).isEqualTo(Instant.parse("2026-11-28T11:40:00Z"));
    }

    @Test
    void a_schedule_with_no_further_slot_ends_with_no_next_fire() {
        Schedule once = after -> after.isBefore(Instant.parse("2026-11-29T10:00:00Z"))
                ? Optional.of(Instant.parse("2026-11-29T10:00:00Z"))
                : Optional.empty();
        Catchup.Plan p =
                Catchup.plan(once, Instant.parse("2026-11-29T10:00:00Z"), NOW, WINDOW, MisfirePolicy.FIRE_ONCE, 10);
        assertThat(fired(p)).hasSize(1);
        assertThat(p.nextFireAt()).isNull();
    }
}
