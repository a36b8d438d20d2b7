package dev.ax.domain.schedule;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Daylight saving days of 2026, with literal instants. New York: 2026-03-08 02:00 EST jumps to
 * 03:00 EDT (07:00Z), 2026-11-01 02:00 EDT falls back to 01:00 EST (06:00Z). Berlin: 2026-03-29
 * 02:00 CET jumps to 03:00 CEST (01:00Z), 2026-10-25 03:00 CEST falls back to 02:00 CET (01:00Z).
 */
class CronDstTest {

    @ParameterizedTest(name = "{0} in {1}")
    @CsvSource(delimiter = '|', textBlock = """
            # 02:30 does not exist; AX shifts it forward by the gap (one hour): 03:30 EDT
            30 2 * * *  | America/New_York | 2026-03-07T12:00:00Z | 2026-03-08T07:30:00Z 2026-03-09T06:30:00Z
            0 2 * * *   | America/New_York | 2026-03-07T12:00:00Z | 2026-03-08T07:00:00Z 2026-03-09T06:00:00Z
            59 2 * * *  | America/New_York | 2026-03-07T12:00:00Z | 2026-03-08T07:59:00Z 2026-03-09T06:59:00Z
            # 02:30 CET would be 01:30Z; shifted to 03:30 CEST, which is also 01:30Z
            30 2 * * *  | Europe/Berlin    | 2026-03-28T12:00:00Z | 2026-03-29T01:30:00Z 2026-03-30T00:30:00Z
            # the gap slot and the 03:00 slot land on the same instant and fire once
            0 2,3 * * * | America/New_York | 2026-03-07T12:00:00Z | 2026-03-08T07:00:00Z 2026-03-09T06:00:00Z
            """)
    void a_slot_in_the_spring_gap_fires_once_shifted_forward_by_the_gap(
            String expression, ZoneId zone, Instant after, String expected) {
        CronScheduleTest.assertSlots(expression, zone, after, expected);
    }

    @ParameterizedTest(name = "{0} in {1}")
    @CsvSource(delimiter = '|', textBlock = """
            # 01:30 happens at 05:30Z (EDT) and 06:30Z (EST); only the first fires
            30 1 * * *  | America/New_York | 2026-10-31T12:00:00Z | 2026-11-01T05:30:00Z 2026-11-02T06:30:00Z
            0 1 * * *   | America/New_York | 2026-10-31T12:00:00Z | 2026-11-01T05:00:00Z 2026-11-02T06:00:00Z
            0,30 1 * * *| America/New_York | 2026-10-31T12:00:00Z | 2026-11-01T05:00:00Z 2026-11-01T05:30:00Z 2026-11-02T06:00:00Z
            # asked from between the two occurrences, the second one is not a slot
            30 1 * * *  | America/New_York | 2026-11-01T05:30:00Z | 2026-11-02T06:30:00Z
            30 1 * * *  | America/New_York | 2026-11-01T06:00:00Z | 2026-11-02T06:30:00Z
            # 02:30 in Berlin happens at 00:30Z (CEST) and 01:30Z (CET); only the first fires
            30 2 * * *  | Europe/Berlin    | 2026-10-24T12:00:00Z | 2026-10-25T00:30:00Z 2026-10-26T01:30:00Z
            30 2 * * *  | Europe/Berlin    | 2026-10-25T00:30:00Z | 2026-10-26T01:30:00Z
            """)
    void a_repeated_wall_time_fires_once_at_its_first_occurrence(
            String expression, ZoneId zone, Instant after, String expected) {
        CronScheduleTest.assertSlots(expression, zone, after, expected);
    }

    @ParameterizedTest(name = "{0} in {1} on {2}")
    @CsvSource(delimiter = '|', textBlock = """
            30 2 * * * | America/New_York | 2026-03-08
            30 2 * * * | America/New_York | 2026-11-01
            30 1 * * * | America/New_York | 2026-03-08
            30 1 * * * | America/New_York | 2026-11-01
            0 3 * * *  | America/New_York | 2026-03-08
            0 0 * * *  | America/New_York | 2026-11-01
            30 2 * * * | Europe/Berlin    | 2026-03-29
            30 2 * * * | Europe/Berlin    | 2026-10-25
            0 2 * * *  | Europe/Berlin    | 2026-03-29
            0 2 * * *  | Europe/Berlin    | 2026-10-25
            """)
    void daily_job_fires_exactly_once_on_each_change_day(String expression, ZoneId zone, LocalDate day) {
        assertThat(slotsOnLocalDay(expression, zone, day)).hasSize(1);
    }

    @Test
    void hourly_job_fires_every_elapsed_hour_on_fall_back_day_including_both_one_oclocks() {
        List<Instant> slots = slotsOnLocalDay("0 * * * *", ZoneId.of("America/New_York"), LocalDate.of(2026, 11, 1));

        // The day is 25 hours long. Minute 0 is periodic (hour field *), so, as in Vixie cron,
        // it fires at 01:00 EDT and again at 01:00 EST: every elapsed hour, none twice.
        assertThat(slots)
                .hasSize(25)
                .startsWith(
                        Instant.parse("2026-11-01T04:00:00Z"),
                        Instant.parse("2026-11-01T05:00:00Z"),
                        Instant.parse("2026-11-01T06:00:00Z"),
                        Instant.parse("2026-11-01T07:00:00Z"));
        assertEvenlySpaced(slots, Duration.ofHours(1));
    }

    @Test
    void hourly_job_fires_every_elapsed_hour_on_spring_forward_day() {
        List<Instant> slots = slotsOnLocalDay("0 * * * *", ZoneId.of("America/New_York"), LocalDate.of(2026, 3, 8));

        // The day is 23 hours long; 02:00 shifted to 03:00 EDT merges with the 03:00 slot.
        assertThat(slots)
                .hasSize(23)
                .startsWith(
                        Instant.parse("2026-03-08T05:00:00Z"),
                        Instant.parse("2026-03-08T06:00:00Z"),
                        Instant.parse("2026-03-08T07:00:00Z"),
                        Instant.parse("2026-03-08T08:00:00Z"));
        assertEvenlySpaced(slots, Duration.ofHours(1));
    }

    @ParameterizedTest(name = "{0} in {1} on {2}: {3} slots")
    @CsvSource(delimiter = '|', textBlock = """
            */15 * * * * | America/New_York | 2026-03-08 | 92  | PT15M
            */15 * * * * | America/New_York | 2026-11-01 | 100 | PT15M
            */15 * * * * | Europe/Berlin    | 2026-03-29 | 92  | PT15M
            */15 * * * * | Europe/Berlin    | 2026-10-25 | 100 | PT15M
            */15 * * * * | America/New_York | 2026-07-01 | 96  | PT15M
            @hourly      | Europe/Berlin    | 2026-10-25 | 25  | PT1H
            0 */2 * * *  | Europe/Berlin    | 2026-07-01 | 12  | PT2H
            """)
    void periodic_job_keeps_its_rhythm_in_elapsed_time_across_the_change(
            String expression, ZoneId zone, LocalDate day, int count, Duration step) {
        List<Instant> slots = slotsOnLocalDay(expression, zone, day);

        assertThat(slots).hasSize(count);
        assertEvenlySpaced(slots, step);
    }

    @Test
    void periodic_minutes_within_a_fixed_hour_also_repeat_in_the_overlap() {
        // The minute field starts with *, which Vixie cron counts as periodic, whatever the hour.
        CronScheduleTest.assertSlots(
                "*/30 1 * * *",
                ZoneId.of("America/New_York"),
                Instant.parse("2026-11-01T04:00:00Z"),
                "2026-11-01T05:00:00Z 2026-11-01T05:30:00Z 2026-11-01T06:00:00Z 2026-11-01T06:30:00Z"
                        + " 2026-11-02T06:00:00Z");
    }

    @Test
    void every_minute_of_a_vanished_hour_runs_in_the_hour_after_the_gap() {
        // The gap rule is the same for every slot: 02:00-02:59 EST become 03:00-03:59 EDT.
        List<Instant> slots = slotsOnLocalDay("* 2 * * *", ZoneId.of("America/New_York"), LocalDate.of(2026, 3, 8));

        assertThat(slots)
                .hasSize(60)
                .startsWith(Instant.parse("2026-03-08T07:00:00Z"))
                .endsWith(Instant.parse("2026-03-08T07:59:00Z"));
    }

    @Test
    void a_daily_job_in_shanghai_fires_365_times_in_2027() {
        ZoneId shanghai = ZoneId.of("Asia/Shanghai");

        List<Instant> slots = slotsBetween(
                "0 2 * * *", shanghai, Instant.parse("2026-12-31T16:00:00Z"), Instant.parse("2027-12-31T16:00:00Z"));

        assertThat(slots)
                .hasSize(365)
                .startsWith(Instant.parse("2026-12-31T18:00:00Z"))
                .endsWith(Instant.parse("2027-12-30T18:00:00Z"));
        assertEvenlySpaced(slots, Duration.ofDays(1));
    }

    @Test
    void a_daily_job_in_new_york_fires_365_times_in_2027_despite_two_changes() {
        ZoneId newYork = ZoneId.of("America/New_York");

        List<Instant> slots = slotsBetween(
                "30 2 * * *", newYork, Instant.parse("2027-01-01T05:00:00Z"), Instant.parse("2028-01-01T05:00:00Z"));

        assertThat(slots).hasSize(365);
        assertThat(slots.stream().map(s -> s.atZone(newYork).toLocalDate()).distinct())
                .hasSize(365);
    }

    static List<Instant> slotsOnLocalDay(String expression, ZoneId zone, LocalDate day) {
        return slotsBetween(
                expression,
                zone,
                day.atStartOfDay(zone).toInstant(),
                day.plusDays(1).atStartOfDay(zone).toInstant());
    }

    /** Slots in [from, to); iterating nextAfter must always move strictly forward. */
    static List<Instant> slotsBetween(String expression, ZoneId zone, Instant from, Instant to) {
        CronSchedule schedule = CronSchedule.parse(expression, zone);
        List<Instant> slots = new ArrayList<>();
        Instant cursor = from.minusNanos(1);
        while (true) {
            Optional<Instant> next = schedule.nextAfter(cursor);
            if (next.isEmpty() || !next.get().isBefore(to)) {
                return slots;
            }
            assertThat(next.get()).isAfter(cursor);
            cursor = next.get();
            slots.add(cursor);
        }
    }

    private static void assertEvenlySpaced(List<Instant> slots, Duration step) {
        for (int i = 1; i < slots.size(); i++) {
            assertThat(Duration.between(slots.get(i - 1), slots.get(i)))
                    .as("gap before slot %d", i)
                    .isEqualTo(step);
        }
    }
}
