package dev.ax.domain.schedule;

import java.time.Instant;
import java.time.LocalDateTime;
import java.time.Year;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.zone.ZoneOffsetTransition;
import java.time.zone.ZoneRules;
import java.util.Objects;
import java.util.Optional;

/**
 * A cron schedule in an IANA time zone.
 *
 * <h2>Syntax (Vixie cron)</h2>
 * {@code minute hour day-of-month month day-of-week}, or six fields with leading seconds, or a
 * macro: {@code @yearly}/{@code @annually}, {@code @monthly}, {@code @weekly}, {@code @daily}/
 * {@code @midnight}, {@code @hourly}. Each field takes {@code *}, values, ranges {@code a-b}, lists
 * and steps ({@code *}{@code /15}, {@code 1-30/5}, {@code 5/15} = from 5 to the end). Months and
 * weekdays take names ({@code JAN}, {@code mon}; any case); weekday 0 and 7 are both Sunday, and
 * {@code SAT-SUN} is allowed. {@code L} in day-of-month is the month's last day; {@code 5L} in
 * day-of-week is the month's last Friday. {@code ?} is read as {@code *} in the two day fields.
 *
 * <p>Days follow Vixie cron exactly: if day-of-month and day-of-week are both restricted (neither
 * field starts with {@code *}), a day matches when EITHER matches, so {@code 0 0 1,15 * 1} fires on
 * the 1st, the 15th and every Monday. Otherwise both must match, which for a {@code *} field is
 * every day; note that {@code *}{@code /2} starts with {@code *}, so {@code 0 0 *}{@code /2 * 1} is
 * odd days that are Mondays, as in Vixie cron (not odd days or Mondays).
 *
 * <h2>Daylight saving time</h2>
 * Slots are wall-clock times in the zone. Where the clock jumps, each wall-clock slot still fires
 * at most once and no instant fires twice:
 * <ul>
 *   <li>Gap (spring forward): a slot the gap removes fires at the same wall time shifted forward
 *       by the gap length, as {@link java.time.ZonedDateTime#of} resolves it: in New York on
 *       2026-03-08, {@code 30 2 * * *} fires at 03:30 EDT. A daily job still runs that day, an
 *       hour late on the clock but on time in elapsed hours. A shifted slot that lands on another
 *       slot merges with it ({@code 0 * * * *} fires once at 03:00).</li>
 *   <li>Overlap (fall back): a repeated wall time fires once, at its first occurrence (the
 *       earlier offset), so {@code 30 1 * * *} in New York on 2026-11-01 fires at 01:30 EDT only.
 *       Exception, again from Vixie cron: a periodic job (second, minute or hour field starts with
 *       {@code *}, e.g. {@code 0 * * * *}, {@code *}{@code /15 * * * *}, {@code @hourly}) fires at
 *       both occurrences, so it keeps its rhythm in elapsed time: hourly fires 25 times that day.</li>
 * </ul>
 * An expression that can never match, such as {@code 0 0 30 2 *}, parses but has no slots.
 */
public final class CronSchedule implements Schedule {
    // Below and above these, LocalDateTime cannot hold a wall time plus the search horizon.
    private static final long FIRST_SEARCHABLE =
            LocalDateTime.of(Year.MIN_VALUE + 2, 1, 1, 0, 0).toEpochSecond(ZoneOffset.UTC);
    private static final long LAST_SEARCHABLE = LocalDateTime.of(
                    Year.MAX_VALUE - 2 * CronPattern.HORIZON_YEARS, 1, 1, 0, 0)
            .toEpochSecond(ZoneOffset.UTC);
    private static final long NONE = Long.MAX_VALUE;

    private final String expression;
    private final ZoneId zone;
    private final ZoneRules rules;
    private final CronPattern pattern;
    private final boolean neverFires;

    private CronSchedule(String expression, ZoneId zone, CronPattern pattern) {
        this.expression = expression;
        this.zone = zone;
        this.rules = zone.getRules();
        this.pattern = pattern;
        // The calendar repeats every 400 years: no match in one search means no match ever.
        this.neverFires = pattern.firstAtOrAfter(LocalDateTime.of(2000, 1, 1, 0, 0)) == null;
    }

    /**
     * Parses once; {@link #nextAfter} then only does arithmetic.
     *
     * @throws IllegalArgumentException with a short reason fit to show next to the expression,
     *                                  e.g. {@code minute field: 61 is out of range 0-59}
     */
    public static CronSchedule parse(String expression, ZoneId zone) {
        Objects.requireNonNull(zone, "zone");
        return new CronSchedule(expression, zone, CronPattern.parse(expression));
    }

    public String expression() {
        return expression;
    }

    public ZoneId zone() {
        return zone;
    }

    /**
     * Walks the zone's constant-offset segments from {@code after}: inside one segment the wall
     * clock maps to instants in order, so the first wall slot found there is the answer, unless
     * the segment starts right after a gap, whose swallowed slots compete as shifted instants.
     */
    @Override
    public Optional<Instant> nextAfter(Instant after) {
        // Slots are whole seconds, so "strictly after" is "at or after the next whole second".
        long from = Math.max(after.getEpochSecond() + 1, FIRST_SEARCHABLE);
        while (!neverFires && from <= LAST_SEARCHABLE) {
            Instant at = Instant.ofEpochSecond(from);
            ZoneOffsetTransition previous = rules.previousTransition(at.plusSeconds(1));
            ZoneOffsetTransition next = rules.nextTransition(at);
            int offset = rules.getOffset(at).getTotalSeconds();
            long end = next == null ? NONE : next.toEpochSecond();
            long best = firstRegular(from, offset, previous, end);
            if (previous != null && previous.isGap()) {
                best = Math.min(best, firstShiftedOutOfGap(from, previous, end));
            }
            if (best != NONE) {
                return Optional.of(Instant.ofEpochSecond(best));
            }
            if (next == null) {
                return Optional.empty();
            }
            from = end;
        }
        return Optional.empty();
    }

    /** The first slot whose wall time exists in this segment, at or after {@code from}. */
    private long firstRegular(long from, int offset, ZoneOffsetTransition previous, long end) {
        long wallStart = from + offset;
        if (previous != null && previous.isOverlap() && !pattern.periodic()) {
            // The repeated wall times already fired at their first occurrence, before the transition.
            wallStart = Math.max(
                    wallStart,
                    previous.toEpochSecond() + previous.getOffsetBefore().getTotalSeconds());
        }
        LocalDateTime wall = pattern.firstAtOrAfter(wall(wallStart));
        if (wall == null) {
            return NONE;
        }
        long instant = seconds(wall) - offset;
        return instant < end ? instant : NONE;
    }

    /** The first slot whose wall time the gap removed, moved forward by the gap length. */
    private long firstShiftedOutOfGap(long from, ZoneOffsetTransition gap, long end) {
        int before = gap.getOffsetBefore().getTotalSeconds();
        long wallStart = from + before;
        long wallEnd = gap.toEpochSecond() + gap.getOffsetAfter().getTotalSeconds();
        if (wallStart >= wallEnd) {
            return NONE;
        }
        LocalDateTime wall = pattern.firstAtOrAfter(wall(wallStart));
        if (wall == null || seconds(wall) >= wallEnd) {
            return NONE;
        }
        // Read with the offset before the gap: 02:30 at -05:00 is 03:30 at -04:00.
        long instant = seconds(wall) - before;
        return instant < end ? instant : NONE;
    }

    private static LocalDateTime wall(long epochSecond) {
        return LocalDateTime.ofEpochSecond(epochSecond, 0, ZoneOffset.UTC);
    }

    private static long seconds(LocalDateTime wall) {
        return wall.toEpochSecond(ZoneOffset.UTC);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof CronSchedule other && expression.equals(other.expression) && zone.equals(other.zone);
    }

    @Override
    public int hashCode() {
        return Objects.hash(expression, zone);
    }

    @Override
    public String toString() {
        return expression;
    }
}
