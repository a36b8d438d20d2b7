package dev.ax.domain.schedule;

import static org.assertj.core.api.Assertions.assertThat;

import com.cronutils.model.definition.CronDefinition;
import com.cronutils.model.definition.CronDefinitionBuilder;
import com.cronutils.model.time.ExecutionTime;
import com.cronutils.parser.CronParser;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.zone.ZoneOffsetTransition;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * "No slot missed, none invented": every slot AX computes is compared with an independent answer.
 * cron-utils lists the matching wall-clock times (asked in UTC, where no clock ever jumps), and
 * java.time turns each into instants by AX's DST rules: a gap time resolves as ZonedDateTime.of
 * does (shifted forward), a repeated time fires at the earlier offset, and also at the later one
 * when the job is periodic. The expressions avoid the one place cron-utils reads cron differently
 * (a day field such as {@code *}{@code /2} next to a restricted one: cron-utils ORs, Vixie cron
 * ANDs), which CronScheduleTest covers.
 */
class CronOracleTest {
    private static final CronParser FIVE = new CronParser(definition(false));
    private static final CronParser SIX = new CronParser(definition(true));

    private static final List<String> EXPRESSIONS = List.of(
            "* * * * *",
            "*/15 * * * *",
            "0 * * * *",
            "30 * * * *",
            "0 */2 * * *",
            "30 2 * * *",
            "30 1 * * *",
            "0 2,3 * * *",
            "* 2 * * *",
            "*/30 1 * * *",
            "0,30 1-3 * * *",
            "15 0-4 * * *",
            "45 23 * * *",
            "0-59/7 0-5 * * *",
            "5/20 * * * *",
            "0 0 * * 0",
            "0 2 L * *",
            "0 2 * * 0L",
            "0 2 1,15 * 0",
            "0 1-3 * * SUN",
            "*/10 * 1-3 * * *",
            "30 30 2 * * *",
            "0 0 * * * *");
    private static final List<String> ZONES = List.of(
            // Lord Howe moves its clock by 30 minutes, so gaps and overlaps are not always an hour.
            "America/New_York", "Europe/Berlin", "Australia/Sydney", "Australia/Lord_Howe", "Asia/Shanghai", "UTC");

    static Stream<Arguments> two_days_around_each_2026_transition() {
        List<Arguments> cases = new ArrayList<>();
        for (String zone : ZONES) {
            for (Instant at : transitions2026(ZoneId.of(zone))) {
                for (String expression : EXPRESSIONS) {
                    cases.add(Arguments.of(expression, zone, at.minusSeconds(86_400), at.plusSeconds(86_400)));
                }
            }
        }
        return cases.stream();
    }

    @ParameterizedTest(name = "{0} in {1} from {2}")
    @MethodSource
    void two_days_around_each_2026_transition(String expression, ZoneId zone, Instant from, Instant to) {
        assertThat(ax(expression, zone, from, to)).containsExactlyElementsOf(oracle(expression, zone, from, to));
    }

    static Stream<Arguments> ten_years_of_sparse_schedules() {
        return Stream.of(
                        "0 0 L * *",
                        "0 0 29 2 *",
                        "0 0 13 * 5",
                        "0 0 * * 5L",
                        "0 12 1,15 * 1",
                        "0 9 * JAN-MAR MON-FRI",
                        "0 2 1 */3 *",
                        "30 2 * * 0",
                        "0 0 L * 1",
                        "0 0 31 * *")
                .flatMap(e -> Stream.of("Europe/Berlin", "America/New_York").map(z -> Arguments.of(e, z)));
    }

    @ParameterizedTest(name = "{0} in {1}")
    @MethodSource
    void ten_years_of_sparse_schedules(String expression, ZoneId zone) {
        Instant from = Instant.parse("2026-01-01T00:00:00Z");
        Instant to = Instant.parse("2036-01-01T00:00:00Z");

        assertThat(ax(expression, zone, from, to)).containsExactlyElementsOf(oracle(expression, zone, from, to));
    }

    private static List<Instant> ax(String expression, ZoneId zone, Instant from, Instant to) {
        return CronDstTest.slotsBetween(expression, zone, from, to);
    }

    private static List<Instant> oracle(String expression, ZoneId zone, Instant from, Instant to) {
        String[] fields = expression.split(" ");
        boolean seconds = fields.length == 6;
        ExecutionTime wallClock = ExecutionTime.forCron((seconds ? SIX : FIVE).parse(expression));
        boolean periodic = Stream.of(fields).limit(seconds ? 3 : 2).anyMatch(f -> f.startsWith("*"));
        // Wall times a day either side reach every instant in the window, whatever the offsets.
        LocalDateTime last = LocalDateTime.ofInstant(to, zone).plusDays(1);
        ZonedDateTime cursor = LocalDateTime.ofInstant(from, zone).minusDays(1).atZone(ZoneOffset.UTC);
        TreeSet<Instant> slots = new TreeSet<>();
        while (true) {
            Optional<ZonedDateTime> next = wallClock.nextExecution(cursor);
            if (next.isEmpty() || next.get().toLocalDateTime().isAfter(last)) {
                break;
            }
            cursor = next.get();
            ZonedDateTime resolved = ZonedDateTime.of(cursor.toLocalDateTime(), zone);
            slots.add(resolved.toInstant());
            if (periodic) {
                slots.add(resolved.withLaterOffsetAtOverlap().toInstant());
            }
        }
        return List.copyOf(slots.subSet(from, true, to, false));
    }

    private static List<Instant> transitions2026(ZoneId zone) {
        List<Instant> result = new ArrayList<>();
        Instant cursor = Instant.parse("2026-01-01T00:00:00Z");
        Instant end = Instant.parse("2027-01-01T00:00:00Z");
        ZoneOffsetTransition t;
        while ((t = zone.getRules().nextTransition(cursor)) != null
                && t.getInstant().isBefore(end)) {
            result.add(t.getInstant());
            cursor = t.getInstant();
        }
        // A zone without changes still gets one window, so fixed offsets are compared too.
        return result.isEmpty() ? List.of(Instant.parse("2026-06-15T00:00:00Z")) : result;
    }

    /** Vixie-style fields for cron-utils: weekday 0-7 with 7 = Sunday, L in both day fields. */
    private static CronDefinition definition(boolean withSeconds) {
        CronDefinitionBuilder builder = CronDefinitionBuilder.defineCron();
        if (withSeconds) {
            builder = builder.withSeconds().withStrictRange().and();
        }
        return builder.withMinutes()
                .withStrictRange()
                .and()
                .withHours()
                .withStrictRange()
                .and()
                .withDayOfMonth()
                .supportsL()
                .withValidRange(1, 31)
                .withStrictRange()
                .and()
                .withMonth()
                .withStrictRange()
                .and()
                .withDayOfWeek()
                .withValidRange(0, 7)
                .withMondayDoWValue(1)
                .withIntMapping(7, 0)
                .supportsL()
                .withStrictRange()
                .and()
                .instance();
    }
}
