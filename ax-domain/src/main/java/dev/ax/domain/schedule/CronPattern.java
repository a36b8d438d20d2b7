package dev.ax.domain.schedule;

import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.Year;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * A parsed cron expression on the wall clock, with no time zone: which local date-times match.
 * {@link CronSchedule} turns these wall-clock slots into instants. Each field is a bit set so that
 * finding the next slot is a few bit operations per field, not a scan of every second.
 */
final class CronPattern {
    /**
     * The Gregorian calendar, weekdays included, repeats every 400 years, so a pattern that does
     * not match within 400 years of any date never matches: that bounds every search.
     */
    static final int HORIZON_YEARS = 400;

    private static final Pattern WHITESPACE = Pattern.compile("\\s+");
    private static final String FIELD_COUNT = "expected 5 fields (minute hour day-of-month month day-of-week),"
            + " 6 with leading seconds, or a macro like @daily; got ";
    private static final Map<String, String> MACROS = Map.of(
            "@yearly", "0 0 1 1 *",
            "@annually", "0 0 1 1 *",
            "@monthly", "0 0 1 * *",
            "@weekly", "0 0 * * 0",
            "@daily", "0 0 * * *",
            "@midnight", "0 0 * * *",
            "@hourly", "0 * * * *");

    private final long seconds;
    private final long minutes;
    private final long hours;
    private final long daysOfMonth;
    private final long months;
    private final long daysOfWeek;
    private final boolean lastDayOfMonth;
    private final long lastWeekdays;
    /** Vixie cron: when both day fields are restricted, a day matches if EITHER matches. */
    private final boolean eitherDay;
    /** Vixie cron: a job with {@code *} in its second, minute or hour field is periodic within the day. */
    private final boolean periodic;

    private CronPattern(CronField.Values[] f) {
        CronField.Values dom = f[3];
        CronField.Values dow = f[5];
        this.seconds = f[0].bits();
        this.minutes = f[1].bits();
        this.hours = f[2].bits();
        this.daysOfMonth = dom.bits();
        this.months = f[4].bits();
        this.daysOfWeek = dow.bits();
        this.lastDayOfMonth = dom.lastDayOfMonth();
        this.lastWeekdays = dow.lastWeekdays();
        this.eitherDay = !dom.star() && !dow.star();
        this.periodic = f[0].star() || f[1].star() || f[2].star();
    }

    static CronPattern parse(String expression) {
        String text = expression == null ? "" : expression.strip();
        if (text.isEmpty()) {
            throw new IllegalArgumentException("cron expression is empty");
        }
        String[] tokens = WHITESPACE.split(text);
        if (tokens[0].startsWith("@")) {
            tokens = WHITESPACE.split(macro(tokens));
        }
        boolean hasSeconds = tokens.length == 6;
        if (tokens.length != 5 && !hasSeconds) {
            throw new IllegalArgumentException(FIELD_COUNT + tokens.length);
        }
        int shift = hasSeconds ? 0 : 1;
        CronField.Values[] f = new CronField.Values[6];
        f[0] = hasSeconds ? CronField.SECOND.parse(tokens[0]) : CronField.SECOND.parse("0");
        CronField[] rest = {
            CronField.MINUTE, CronField.HOUR, CronField.DAY_OF_MONTH, CronField.MONTH, CronField.DAY_OF_WEEK
        };
        for (int i = 0; i < rest.length; i++) {
            f[i + 1] = rest[i].parse(tokens[i + 1 - shift]);
        }
        return new CronPattern(f);
    }

    private static String macro(String[] tokens) {
        String name = tokens[0].toLowerCase(Locale.ROOT);
        if (name.equals("@reboot")) {
            throw new IllegalArgumentException(
                    "@reboot is not supported: AX fires on the clock, not when a machine starts");
        }
        String fields = MACROS.get(name);
        if (fields == null) {
            throw new IllegalArgumentException("unknown macro " + tokens[0]
                    + "; use @yearly, @annually, @monthly, @weekly, @daily, @midnight or @hourly");
        }
        if (tokens.length > 1) {
            throw new IllegalArgumentException(tokens[0] + " stands alone; remove the fields after it");
        }
        return fields;
    }

    boolean periodic() {
        return periodic;
    }

    /** The first matching wall-clock time at or after {@code from} (whole seconds), or null if none. */
    LocalDateTime firstAtOrAfter(LocalDateTime from) {
        LocalDateTime t = from.getNano() == 0 ? from : from.withNano(0).plusSeconds(1);
        int lastYear = Math.min(t.getYear() + HORIZON_YEARS, Year.MAX_VALUE - 1);
        while (t.getYear() <= lastYear) {
            if (!has(months, t.getMonthValue())) {
                t = startOfNextMonth(t);
                continue;
            }
            LocalDate day = t.toLocalDate();
            if (!matchesDay(day)) {
                t = day.plusDays(1).atStartOfDay();
                continue;
            }
            int h = next(hours, t.getHour());
            if (h < 0) {
                t = day.plusDays(1).atStartOfDay();
                continue;
            }
            if (h > t.getHour()) {
                t = day.atTime(h, 0);
            }
            int m = next(minutes, t.getMinute());
            if (m < 0) {
                t = day.atTime(h, 0).plusHours(1);
                continue;
            }
            if (m > t.getMinute()) {
                t = day.atTime(h, m);
            }
            int s = next(seconds, t.getSecond());
            if (s < 0) {
                t = day.atTime(h, m).plusMinutes(1);
                continue;
            }
            return t.withSecond(s);
        }
        return null;
    }

    private LocalDateTime startOfNextMonth(LocalDateTime t) {
        int year = t.getYear();
        int month = next(months, t.getMonthValue() + 1);
        if (month < 0) {
            year++;
            month = next(months, 1);
        }
        return LocalDate.of(year, month, 1).atStartOfDay();
    }

    boolean matchesDay(LocalDate day) {
        int dom = day.getDayOfMonth();
        int length = day.lengthOfMonth();
        int dow = day.getDayOfWeek().getValue() % 7;
        boolean domHit = has(daysOfMonth, dom) || (lastDayOfMonth && dom == length);
        boolean dowHit = has(daysOfWeek, dow) || (has(lastWeekdays, dow) && dom > length - 7);
        return eitherDay ? domHit || dowHit : domHit && dowHit;
    }

    private static boolean has(long bits, int value) {
        return (bits & (1L << value)) != 0;
    }

    /** The smallest set bit at or above {@code from}, or -1. */
    private static int next(long bits, int from) {
        long above = from > 63 ? 0 : bits >>> from;
        return above == 0 ? -1 : from + Long.numberOfTrailingZeros(above);
    }
}
