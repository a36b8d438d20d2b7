package dev.ax.domain.schedule;

import java.util.List;
import java.util.Locale;

/**
 * One field of a cron expression: its range, its names, and how to read its text into a bit set
 * (bit {@code v} set = value {@code v} allowed). Every error names the field, because the user
 * sees the message next to the whole expression and must know where to look.
 */
enum CronField {
    SECOND("second", 0, 59, List.of(), 0),
    MINUTE("minute", 0, 59, List.of(), 0),
    HOUR("hour", 0, 23, List.of(), 0),
    DAY_OF_MONTH("day-of-month", 1, 31, List.of(), 0),
    MONTH(
            "month",
            1,
            12,
            List.of("JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"),
            1),
    DAY_OF_WEEK("day-of-week", 0, 7, List.of("SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"), 0);

    /**
     * What one field allows. {@code star} records whether the text starts with {@code *} (or
     * {@code ?}): Vixie cron decides the day-of-month/day-of-week OR rule on that, not on the
     * resulting set, so {@code *}{@code /2} counts as unrestricted there.
     */
    record Values(long bits, boolean lastDayOfMonth, long lastWeekdays, boolean star) {}

    private final String label;
    private final int min;
    private final int max;
    private final List<String> names;
    private final int firstNameValue;

    CronField(String label, int min, int max, List<String> names, int firstNameValue) {
        this.label = label;
        this.min = min;
        this.max = max;
        this.names = names;
        this.firstNameValue = firstNameValue;
    }

    Values parse(String text) {
        long bits = 0;
        boolean lastDay = false;
        long lastWeekdays = 0;
        // String.split on one plain character takes the JDK fast path: no regex is compiled.
        for (String item : text.split(",", -1)) {
            if (item.isEmpty()) {
                throw error("empty item in list '" + text + "'");
            }
            String upper = item.toUpperCase(Locale.ROOT);
            if (upper.equals("L")) {
                lastDay = lastDayOfMonth();
            } else if (this == DAY_OF_WEEK && upper.endsWith("L")) {
                lastWeekdays |= 1L << (value(item.substring(0, item.length() - 1), item) % 7);
            } else {
                bits |= rangeBits(item, upper);
            }
        }
        if (this == DAY_OF_WEEK && (bits & (1L << 7)) != 0) {
            bits = (bits & ~(1L << 7)) | 1L; // 7 is Sunday too, as in Vixie cron
        }
        char first = text.charAt(0);
        boolean star = first == '*' || first == '?';
        return new Values(bits, lastDay, lastWeekdays, star);
    }

    private boolean lastDayOfMonth() {
        if (this == DAY_OF_MONTH) {
            return true;
        }
        if (this == DAY_OF_WEEK) {
            throw error("L needs a day in front of it, e.g. 5L for the last Friday of the month");
        }
        throw error("L is only allowed in day-of-month and day-of-week");
    }

    /** {@code *}, {@code a}, {@code a-b}, each optionally {@code /step}; {@code a/step} runs to the field's end. */
    private long rangeBits(String item, String upper) {
        rejectUnsupported(item, upper);
        int slash = item.indexOf('/');
        if (slash >= 0 && item.indexOf('/', slash + 1) >= 0) {
            throw error("'" + item + "' has more than one '/'");
        }
        String base = slash < 0 ? item : item.substring(0, slash);
        int step = slash < 0 ? 1 : step(item.substring(slash + 1));
        int lo;
        int hi;
        int dash = base.indexOf('-', 1);
        if (base.equals("*") || (base.equals("?") && isDayField())) {
            lo = min;
            hi = max;
        } else if (dash > 0) {
            lo = value(base.substring(0, dash), item);
            hi = value(base.substring(dash + 1), item);
            if (hi < lo && this == DAY_OF_WEEK && hi == 0) {
                hi = 7; // SAT-SUN reads naturally; Sunday is also 7
            } else if (hi < lo) {
                int top = this == DAY_OF_WEEK ? 6 : max;
                throw error("range " + base + " goes backwards; cron ranges do not wrap, write " + lo + "-" + top + ","
                        + min + "-" + hi);
            }
        } else {
            lo = value(base, item);
            hi = slash < 0 ? lo : max;
        }
        long bits = 0;
        for (int v = lo; v <= hi; v += step) {
            bits |= 1L << v;
        }
        return bits;
    }

    private void rejectUnsupported(String item, String upper) {
        if (this == DAY_OF_MONTH && upper.startsWith("L")) {
            throw error("'" + item + "' is not supported; L stands alone (the last day of the month)");
        }
        if (this == DAY_OF_MONTH && upper.contains("W")) {
            throw error("'" + item + "' is not supported: W (nearest weekday) is a Quartz extension");
        }
        if (upper.contains("#")) {
            throw error("'" + item + "' is not supported: # (nth weekday) is a Quartz extension");
        }
        if (upper.equals("?") && !isDayField()) {
            throw error("? is only allowed in day-of-month and day-of-week");
        }
    }

    private boolean isDayField() {
        return this == DAY_OF_MONTH || this == DAY_OF_WEEK;
    }

    private int step(String text) {
        int span = max - min + 1;
        if (text.isEmpty() || !isDigits(text)) {
            throw error("step '" + text + "' is not a whole number");
        }
        if (text.length() > 4 || Integer.parseInt(text) < 1 || Integer.parseInt(text) > span) {
            throw error("step " + text + " is out of range 1-" + span);
        }
        return Integer.parseInt(text);
    }

    private int value(String token, String item) {
        if (token.isEmpty()) {
            throw error("'" + item + "' is incomplete");
        }
        if (isDigits(token)) {
            // Length first: a 12-digit number must say "out of range", not overflow.
            int v = token.length() > 4 ? Integer.MAX_VALUE : Integer.parseInt(token);
            if (v < min || v > max) {
                throw error(token + " is out of range " + min + "-" + max);
            }
            return v;
        }
        int index = names.indexOf(token.toUpperCase(Locale.ROOT));
        if (index >= 0) {
            return firstNameValue + index;
        }
        throw error(
                switch (this) {
                    case MONTH -> "'" + token + "' is not a month (1-12 or JAN-DEC)";
                    case DAY_OF_WEEK -> "'" + token + "' is not a day of the week (0-7 or SUN-SAT)";
                    default -> "'" + token + "' is not a number";
                });
    }

    private static boolean isDigits(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < '0' || c > '9') {
                return false;
            }
        }
        return true;
    }

    private IllegalArgumentException error(String reason) {
        return new IllegalArgumentException(label + " field: " + reason);
    }
}
