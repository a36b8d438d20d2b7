package dev.ax.domain.schedule;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ax.domain.task.Trigger;
import java.time.Instant;
import java.time.ZoneId;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Next slots of many expressions, as literal instants. 2026-01-01 is a Thursday; most rows start
 * there, in UTC, so the expected dates can be checked against any calendar.
 */
class CronScheduleTest {
    private static final ZoneId UTC = ZoneId.of("UTC");

    @Test
    void seed_task_runs_at_two_in_the_morning_shanghai_time() {
        CronSchedule schedule = CronSchedule.parse("0 2 * * *", ZoneId.of("Asia/Shanghai"));

        // 2026-11-30 02:00 +08:00
        assertThat(schedule.nextAfter(Instant.parse("2026-11-29T10:00:00Z")))
                .contains(Instant.parse("2026-11-29T18:00:00Z"));
    }

    @ParameterizedTest(name = "{0} after {1}")
    @CsvSource(delimiter = '|', textBlock = """
            * * * * *        | 2026-01-01T00:00:00Z | 2026-01-01T00:01:00Z 2026-01-01T00:02:00Z 2026-01-01T00:03:00Z
            */15 * * * *     | 2026-01-01T00:07:30Z | 2026-01-01T00:15:00Z 2026-01-01T00:30:00Z 2026-01-01T00:45:00Z
            1-30/5 * * * *   | 2026-01-01T00:20:00Z | 2026-01-01T00:21:00Z 2026-01-01T00:26:00Z 2026-01-01T01:01:00Z
            # a single value with a step runs to the end of the field, as in Quartz and Spring
            5/20 * * * *     | 2026-01-01T00:00:00Z | 2026-01-01T00:05:00Z 2026-01-01T00:25:00Z 2026-01-01T00:45:00Z
            0,30 9 * * *     | 2026-01-01T00:00:00Z | 2026-01-01T09:00:00Z 2026-01-01T09:30:00Z 2026-01-02T09:00:00Z
            15 14 1 * *      | 2026-01-01T00:00:00Z | 2026-01-01T14:15:00Z 2026-02-01T14:15:00Z 2026-03-01T14:15:00Z
            0 */6 * * *      | 2026-01-01T00:00:00Z | 2026-01-01T06:00:00Z 2026-01-01T12:00:00Z 2026-01-01T18:00:00Z
            0 9-17/4 * * *   | 2026-01-01T00:00:00Z | 2026-01-01T09:00:00Z 2026-01-01T13:00:00Z 2026-01-01T17:00:00Z
            0 22 * * 1-5     | 2026-01-01T00:00:00Z | 2026-01-01T22:00:00Z 2026-01-02T22:00:00Z 2026-01-05T22:00:00Z
            0 0 * * 1-5/2    | 2026-01-01T00:00:00Z | 2026-01-02T00:00:00Z 2026-01-05T00:00:00Z 2026-01-07T00:00:00Z
            0 0 1 */3 *      | 2026-01-01T00:00:00Z | 2026-04-01T00:00:00Z 2026-07-01T00:00:00Z 2026-10-01T00:00:00Z
            # months without a 31st are skipped, not clamped
            0 0 31 * *       | 2026-01-01T00:00:00Z | 2026-01-31T00:00:00Z 2026-03-31T00:00:00Z 2026-05-31T00:00:00Z
            0 0 29 2 *       | 2026-01-01T00:00:00Z | 2028-02-29T00:00:00Z 2032-02-29T00:00:00Z 2036-02-29T00:00:00Z
            59 23 31 12 *    | 2026-12-31T23:59:00Z | 2027-12-31T23:59:00Z 2028-12-31T23:59:00Z 2029-12-31T23:59:00Z
            """)
    void numbers_ranges_lists_and_steps(String expression, Instant after, String expected) {
        assertSlots(expression, UTC, after, expected);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            0 9 * * MON-FRI    | 2026-01-01T09:00:00Z 2026-01-02T09:00:00Z 2026-01-05T09:00:00Z
            0 9 * * mon,wed,fri| 2026-01-02T09:00:00Z 2026-01-05T09:00:00Z 2026-01-07T09:00:00Z
            0 0 1 jan,JUL *    | 2026-07-01T00:00:00Z 2027-01-01T00:00:00Z 2027-07-01T00:00:00Z
            0 0 1 Feb-Apr *    | 2026-02-01T00:00:00Z 2026-03-01T00:00:00Z 2026-04-01T00:00:00Z
            0 0 * * SUN        | 2026-01-04T00:00:00Z 2026-01-11T00:00:00Z 2026-01-18T00:00:00Z
            0 0 * * 0          | 2026-01-04T00:00:00Z 2026-01-11T00:00:00Z 2026-01-18T00:00:00Z
            0 0 * * 7          | 2026-01-04T00:00:00Z 2026-01-11T00:00:00Z 2026-01-18T00:00:00Z
            0 0 * * 5-7        | 2026-01-02T00:00:00Z 2026-01-03T00:00:00Z 2026-01-04T00:00:00Z
            # Sunday at the end of a range means 7, so a weekend range reads naturally
            0 0 * * SAT-SUN    | 2026-01-03T00:00:00Z 2026-01-04T00:00:00Z 2026-01-10T00:00:00Z
            """)
    void month_and_weekday_names_any_case_and_seven_is_sunday(String expression, String expected) {
        assertSlots(expression, UTC, Instant.parse("2026-01-01T00:00:00Z"), expected);
    }

    @ParameterizedTest(name = "{0} after {1}")
    @CsvSource(delimiter = '|', textBlock = """
            0 0 L * *    | 2026-01-01T00:00:00Z | 2026-01-31T00:00:00Z 2026-02-28T00:00:00Z 2026-03-31T00:00:00Z
            0 0 L 2 *    | 2027-06-01T00:00:00Z | 2028-02-29T00:00:00Z 2029-02-28T00:00:00Z 2030-02-28T00:00:00Z
            0 0 1,L * *  | 2026-01-01T00:00:00Z | 2026-01-31T00:00:00Z 2026-02-01T00:00:00Z 2026-02-28T00:00:00Z
            0 0 * * 5L   | 2026-01-01T00:00:00Z | 2026-01-30T00:00:00Z 2026-02-27T00:00:00Z 2026-03-27T00:00:00Z
            0 0 * * 0L   | 2026-01-01T00:00:00Z | 2026-01-25T00:00:00Z 2026-02-22T00:00:00Z 2026-03-29T00:00:00Z
            0 0 * * 7L   | 2026-01-01T00:00:00Z | 2026-01-25T00:00:00Z 2026-02-22T00:00:00Z 2026-03-29T00:00:00Z
            0 0 * * friL | 2026-01-01T00:00:00Z | 2026-01-30T00:00:00Z 2026-02-27T00:00:00Z 2026-03-27T00:00:00Z
            """)
    void L_is_the_last_day_and_nL_the_last_such_weekday_of_the_month(
            String expression, Instant after, String expected) {
        assertSlots(expression, UTC, after, expected);
    }

    @ParameterizedTest(name = "{0} after {1}")
    @CsvSource(delimiter = '|', textBlock = """
            # both day fields restricted: the 1st, the 15th AND every Monday (2026-06-01 is a Monday)
            0 0 1,15 * 1 | 2026-06-01T00:00:00Z | 2026-06-08T00:00:00Z 2026-06-15T00:00:00Z 2026-06-22T00:00:00Z 2026-06-29T00:00:00Z 2026-07-01T00:00:00Z 2026-07-06T00:00:00Z
            # Friday or the 13th, not Friday the 13th
            0 0 13 * 5   | 2026-01-01T00:00:00Z | 2026-01-02T00:00:00Z 2026-01-09T00:00:00Z 2026-01-13T00:00:00Z 2026-01-16T00:00:00Z
            0 0 L * 1    | 2026-01-25T00:00:00Z | 2026-01-26T00:00:00Z 2026-01-31T00:00:00Z 2026-02-02T00:00:00Z
            # the classic trap: this is NOT the first Monday, it is days 1-7 plus every Monday
            0 0 1-7 * 1  | 2026-01-06T00:00:00Z | 2026-01-07T00:00:00Z 2026-01-12T00:00:00Z 2026-01-19T00:00:00Z
            # a field starting with * counts as unrestricted (Vixie looks at the first character), so AND: odd days that are Mondays
            0 0 */2 * 1  | 2026-01-01T00:00:00Z | 2026-01-05T00:00:00Z 2026-01-19T00:00:00Z 2026-02-09T00:00:00Z
            # and the other way round: the 1st when it is a Sunday, Tuesday, Thursday or Saturday
            0 0 1 * */2  | 2026-01-01T00:00:00Z | 2026-02-01T00:00:00Z 2026-03-01T00:00:00Z 2026-08-01T00:00:00Z
            # ? is * for people used to Quartz
            0 0 ? * MON  | 2026-01-01T00:00:00Z | 2026-01-05T00:00:00Z 2026-01-12T00:00:00Z 2026-01-19T00:00:00Z
            """)
    void day_of_month_OR_day_of_week_when_both_are_restricted(String expression, Instant after, String expected) {
        assertSlots(expression, UTC, after, expected);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            30 * * * * *         | 2026-01-01T00:00:30Z 2026-01-01T00:01:30Z 2026-01-01T00:02:30Z
            */20 * * * * *       | 2026-01-01T00:00:20Z 2026-01-01T00:00:40Z 2026-01-01T00:01:00Z
            15,45 30 8 1 * *     | 2026-01-01T08:30:15Z 2026-01-01T08:30:45Z 2026-02-01T08:30:15Z
            0 0 12 * * MON       | 2026-01-05T12:00:00Z 2026-01-12T12:00:00Z 2026-01-19T12:00:00Z
            0 0 0 1,15 * 1       | 2026-01-05T00:00:00Z 2026-01-12T00:00:00Z 2026-01-15T00:00:00Z
            """)
    void six_fields_have_leading_seconds(String expression, String expected) {
        assertSlots(expression, UTC, Instant.parse("2026-01-01T00:00:00Z"), expected);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            @yearly   | 2027-01-01T00:00:00Z 2028-01-01T00:00:00Z 2029-01-01T00:00:00Z
            @annually | 2027-01-01T00:00:00Z 2028-01-01T00:00:00Z 2029-01-01T00:00:00Z
            @monthly  | 2026-02-01T00:00:00Z 2026-03-01T00:00:00Z 2026-04-01T00:00:00Z
            @weekly   | 2026-01-04T00:00:00Z 2026-01-11T00:00:00Z 2026-01-18T00:00:00Z
            @daily    | 2026-01-02T00:00:00Z 2026-01-03T00:00:00Z 2026-01-04T00:00:00Z
            @midnight | 2026-01-02T00:00:00Z 2026-01-03T00:00:00Z 2026-01-04T00:00:00Z
            @Daily    | 2026-01-02T00:00:00Z 2026-01-03T00:00:00Z 2026-01-04T00:00:00Z
            @hourly   | 2026-01-01T01:00:00Z 2026-01-01T02:00:00Z 2026-01-01T03:00:00Z
            """)
    void macros_mean_what_vixie_cron_means(String expression, String expected) {
        assertSlots(expression, UTC, Instant.parse("2026-01-01T00:00:00Z"), expected);
    }

    @ParameterizedTest(name = "{0} in {1}")
    @CsvSource(delimiter = '|', textBlock = """
            0 12 * * * | America/New_York | 2026-01-01T17:00:00Z 2026-01-02T17:00:00Z 2026-01-03T17:00:00Z
            0 9 * * *  | Asia/Kolkata     | 2026-01-01T03:30:00Z 2026-01-02T03:30:00Z 2026-01-03T03:30:00Z
            # +05:45: it is already 05:45 on Jan 1 there, so the next midnight is Jan 2
            0 0 * * *  | Asia/Kathmandu   | 2026-01-01T18:15:00Z 2026-01-02T18:15:00Z 2026-01-03T18:15:00Z
            # the weekday is the local one: Monday 08:00 in Auckland (+13:00) is Sunday 19:00 UTC
            0 8 * * 1  | Pacific/Auckland | 2026-01-04T19:00:00Z 2026-01-11T19:00:00Z 2026-01-18T19:00:00Z
            0 0 1 * *  | -03:00           | 2026-01-01T03:00:00Z 2026-02-01T03:00:00Z 2026-03-01T03:00:00Z
            """)
    void slots_are_wall_clock_times_in_the_schedule_zone(String expression, String zone, String expected) {
        assertSlots(expression, ZoneId.of(zone), Instant.parse("2026-01-01T00:00:00Z"), expected);
    }

    @ParameterizedTest(name = "after {0}")
    @CsvSource(delimiter = '|', textBlock = """
            2026-01-01T01:59:59.999Z | 2026-01-01T02:00:00Z
            2026-01-01T02:00:00Z     | 2026-01-02T02:00:00Z
            2026-01-01T02:00:00.001Z | 2026-01-02T02:00:00Z
            """)
    void next_is_strictly_after_the_given_instant(Instant after, Instant expected) {
        assertThat(CronSchedule.parse("0 2 * * *", UTC).nextAfter(after)).contains(expected);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            0 0 30 2 *
            0 0 31 4,6,9,11 *
            0 0 31 2 *
            0 0 0 30 2 *
            """)
    void an_expression_that_never_matches_has_no_slots(String expression) {
        CronSchedule schedule = CronSchedule.parse(expression, UTC);

        assertThat(schedule.nextAfter(Instant.parse("2026-01-01T00:00:00Z"))).isEmpty();
        assertThat(schedule.nextAfter(Instant.MIN)).isEmpty();
    }

    @Test
    void the_ends_of_time_give_no_slot_rather_than_an_exception() {
        CronSchedule schedule = CronSchedule.parse("* * * * *", UTC);

        assertThat(schedule.nextAfter(Instant.MAX)).isEmpty();
        assertThat(schedule.nextAfter(Instant.MIN)).isPresent();
    }

    @Test
    void the_schedule_keeps_the_expression_as_written_and_the_zone() {
        ZoneId berlin = ZoneId.of("Europe/Berlin");
        CronSchedule schedule = CronSchedule.parse(" @daily ", berlin);

        assertThat(schedule.expression()).isEqualTo(" @daily ");
        assertThat(schedule).hasToString(" @daily ");
        assertThat(schedule.zone()).isEqualTo(berlin);
        assertThat(schedule)
                .isEqualTo(CronSchedule.parse(" @daily ", berlin))
                .hasSameHashCodeAs(CronSchedule.parse(" @daily ", berlin))
                .isNotEqualTo(CronSchedule.parse(" @daily ", UTC));
    }

    @Test
    void extra_whitespace_between_fields_is_ignored() {
        CronSchedule schedule = CronSchedule.parse("\t0   2 *\t* *\n", UTC);

        assertThat(schedule.nextAfter(Instant.parse("2026-01-01T00:00:00Z")))
                .contains(Instant.parse("2026-01-01T02:00:00Z"));
    }

    @Test
    void a_cron_trigger_becomes_a_cron_schedule() {
        ZoneId shanghai = ZoneId.of("Asia/Shanghai");

        assertThat(Schedules.of(new Trigger.Cron("0 2 * * *", shanghai)))
                .isEqualTo(CronSchedule.parse("0 2 * * *", shanghai));
    }

    @Test
    void a_zone_is_required() {
        assertThatThrownBy(() -> CronSchedule.parse("0 2 * * *", null)).isInstanceOf(NullPointerException.class);
    }

    static void assertSlots(String expression, ZoneId zone, Instant after, String expected) {
        List<Instant> want =
                Arrays.stream(expected.trim().split("\\s+")).map(Instant::parse).toList();

        assertThat(CronPreview.preview(CronSchedule.parse(expression, zone), after, want.size()))
                .as("%s in %s after %s", expression, zone, after)
                .containsExactlyElementsOf(want);
    }
}
