package dev.ax.domain.schedule;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.ZoneId;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The reason is shown to a person next to {@code trigger.expression}, so each one must name the
 * field and say what is wrong in their terms; the exact text is the contract.
 */
class CronParseErrorTest {
    private static final ZoneId UTC = ZoneId.of("UTC");

    @ParameterizedTest(name = "\"{0}\" -> {1}")
    @CsvSource(delimiter = '|', quoteCharacter = '"', textBlock = """
            61 * * * *        | minute field: 61 is out of range 0-59
            0 24 * * *        | hour field: 24 is out of range 0-23
            0 0 32 * *        | day-of-month field: 32 is out of range 1-31
            0 0 0 * *         | day-of-month field: 0 is out of range 1-31
            0 0 * 13 *        | month field: 13 is out of range 1-12
            0 0 * * 8         | day-of-week field: 8 is out of range 0-7
            0 0 * * 9L        | day-of-week field: 9 is out of range 0-7
            99999999999 * * * * | minute field: 99999999999 is out of range 0-59
            60 0 0 * * *      | second field: 60 is out of range 0-59
            x 0 0 * * *       | second field: 'x' is not a number
            -5 * * * *        | minute field: '-5' is not a number
            0 0 * FOO *       | month field: 'FOO' is not a month (1-12 or JAN-DEC)
            0 0 * * FUN       | day-of-week field: 'FUN' is not a day of the week (0-7 or SUN-SAT)
            """)
    void a_value_outside_its_field_names_the_field_and_the_range(String expression, String reason) {
        assertRefused(expression, reason);
    }

    @ParameterizedTest(name = "\"{0}\" -> {1}")
    @CsvSource(delimiter = '|', quoteCharacter = '"', textBlock = """
            ""                | cron expression is empty
            "   "             | cron expression is empty
            * * *             | expected 5 fields (minute hour day-of-month month day-of-week), 6 with leading seconds, or a macro like @daily; got 3
            garbage           | expected 5 fields (minute hour day-of-month month day-of-week), 6 with leading seconds, or a macro like @daily; got 1
            0 0 12 * * ? 2027 | expected 5 fields (minute hour day-of-month month day-of-week), 6 with leading seconds, or a macro like @daily; got 7
            # six fields are read as leading seconds, so a Quartz-style trailing year lands in day-of-week
            0 0 1 1 * 2027    | day-of-week field: 2027 is out of range 0-7
            """)
    void the_wrong_number_of_fields_says_what_is_expected(String expression, String reason) {
        assertRefused(expression, reason);
    }

    @ParameterizedTest(name = "\"{0}\" -> {1}")
    @CsvSource(delimiter = '|', quoteCharacter = '"', textBlock = """
            @reboot     | @reboot is not supported: AX fires on the clock, not when a machine starts
            @every 5m   | unknown macro @every; use @yearly, @annually, @monthly, @weekly, @daily, @midnight or @hourly
            @daily 5    | @daily stands alone; remove the fields after it
            """)
    void only_time_based_macros_are_accepted(String expression, String reason) {
        assertRefused(expression, reason);
    }

    @ParameterizedTest(name = "\"{0}\" -> {1}")
    @CsvSource(delimiter = '|', quoteCharacter = '"', textBlock = """
            */0 * * * *     | minute field: step 0 is out of range 1-60
            */61 * * * *    | minute field: step 61 is out of range 1-60
            0 */25 * * *    | hour field: step 25 is out of range 1-24
            */x * * * *     | minute field: step 'x' is not a whole number
            1/2/3 * * * *   | minute field: '1/2/3' has more than one '/'
            30-10 * * * *   | minute field: range 30-10 goes backwards; cron ranges do not wrap, write 30-59,0-10
            0 22-2 * * *    | hour field: range 22-2 goes backwards; cron ranges do not wrap, write 22-23,0-2
            0 0 * * FRI-MON | day-of-week field: range FRI-MON goes backwards; cron ranges do not wrap, write 5-6,0-1
            5- * * * *      | minute field: '5-' is incomplete
            1,,2 * * * *    | minute field: empty item in list '1,,2'
            """)
    void malformed_ranges_steps_and_lists_say_what_is_wrong(String expression, String reason) {
        assertRefused(expression, reason);
    }

    @ParameterizedTest(name = "\"{0}\" -> {1}")
    @CsvSource(delimiter = '|', quoteCharacter = '"', textBlock = """
            0 0 15W * *  | day-of-month field: '15W' is not supported: W (nearest weekday) is a Quartz extension
            0 0 LW * *   | day-of-month field: 'LW' is not supported; L stands alone (the last day of the month)
            0 0 L-3 * *  | day-of-month field: 'L-3' is not supported; L stands alone (the last day of the month)
            0 0 * * 5#3  | day-of-week field: '5#3' is not supported: # (nth weekday) is a Quartz extension
            0 0 * * L    | day-of-week field: L needs a day in front of it, e.g. 5L for the last Friday of the month
            0 L * * *    | hour field: L is only allowed in day-of-month and day-of-week
            ? * * * *    | minute field: ? is only allowed in day-of-month and day-of-week
            """)
    void quartz_only_syntax_is_refused_with_the_reason(String expression, String reason) {
        assertRefused(expression, reason);
    }

    @Test
    void a_missing_expression_is_refused_like_an_empty_one() {
        assertRefused(null, "cron expression is empty");
    }

    private static void assertRefused(String expression, String reason) {
        assertThatThrownBy(() -> CronSchedule.parse(expression, UTC))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(reason);
    }
}
