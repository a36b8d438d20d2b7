package dev.ax.store.read;

import dev.ax.domain.run.RunState;
import dev.ax.store.Tx;
import dev.ax.store.read.ConsoleReads.HourRow;
import dev.ax.store.read.ConsoleReads.OpenRun;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The dashboard's runs of the last hours by UTC hour and state ({@link ConsoleReads#hourly}), kept up to date rather
 * than counted again on every request: counting a day of runs was the one console query that grew with the load (a
 * p95 of 236 ms on a box firing 1,000 runs a second). A run that has ended never changes state again, so:
 *
 * <ul>
 *   <li>runs older than {@link #SETTLED} are counted once — those that have ended as sums by hour and state, those
 *       that have not by id, and only these are read again on each request;
 *   <li>the last {@link #SETTLED} is counted on each request, because a run made by a transaction still open when
 *       the line was drawn would appear behind it later;
 *   <li>everything is counted afresh every {@link #RECOUNT}: the window's start moves on, and retention deletes runs
 *       (an ended run it deleted is in the sums until then).
 * </ul>
 *
 * One per node, shared by its requests.
 */
public final class RecentHours {
    /**
     * How long after its creation a run is counted as settled. Short, because the runs younger than this are counted
     * on every request (5,000 at 1,000 runs a second); long enough for the transaction that made a run to have
     * committed. One that commits later still is missed until the next recount.
     */
    static final Duration SETTLED = Duration.ofSeconds(5);

    static final Duration RECOUNT = Duration.ofMinutes(10);

    private record Key(long hour, RunState state) {}

    /** Ended runs of the settled part, by hour and state. */
    private final Map<Key, HourRow> ended = new HashMap<>();
    /** Runs of the settled part that had not ended when last read, by id. */
    private final Map<Long, OpenRun> open = new HashMap<>();
    /** Runs with {@code fromId <= id < settledTo} are in {@link #ended} or {@link #open}; -1 before the first count. */
    private long settledTo = -1;

    private Instant countedAt = Instant.MIN;
    private long recounts;

    /**
     * The runs created since {@code since} by hour and state (runs of the first hour up to {@link #RECOUNT} older may
     * be among them).
     *
     * @param fromId the first run id created at or after {@code since} ({@link ConsoleReads#firstIdSince})
     */
    public synchronized List<HourRow> read(Tx tx, Instant since, long fromId) {
        Instant now = tx.now();
        long settledNow = Math.max(fromId, ConsoleReads.firstIdSince(tx, now.minus(SETTLED)));
        if (settledTo < 0 || countedAt.plus(RECOUNT).isBefore(now) || settledNow < settledTo || fromId > settledTo) {
            ended.clear();
            open.clear();
            settle(tx, fromId, settledNow);
            countedAt = now;
            recounts++;
        } else {
            settle(tx, settledTo, settledNow);
            reread(tx);
        }
        long firstHour = Math.floorDiv(since.getEpochSecond(), 3600);
        List<HourRow> rows = new ArrayList<>(ended.values());
        rows.addAll(
                open.values().stream()
                        .collect(Collectors.groupingBy(r -> new Key(r.hour(), r.state())))
                        .entrySet()
                        .stream()
                        .map(e -> new HourRow(
                                e.getKey().hour(),
                                e.getKey().state(),
                                e.getValue().size(),
                                e.getValue().stream().map(OpenRun::lagSeconds).reduce(null, RecentHours::max)))
                        .toList());
        rows.addAll(ConsoleReads.hourly(tx, settledTo));
        return merge(rows.stream().filter(r -> r.hour() >= firstHour).toList());
    }

    /** How many times everything was counted afresh. */
    synchronized long recounts() {
        return recounts;
    }

    /** Counts the runs with {@code from <= id < to} into the settled part. */
    private void settle(Tx tx, long from, long to) {
        if (to > from) {
            ConsoleReads.hourlyEnded(tx, from, to).forEach(this::addEnded);
            ConsoleReads.openRuns(tx, from, to).forEach(r -> open.put(r.id(), r));
        }
        settledTo = Math.max(to, from);
    }

    /** Reads the open runs again: those that ended move to the sums, those retention deleted go. */
    private void reread(Tx tx) {
        if (open.isEmpty()) {
            return;
        }
        Map<Long, OpenRun> current = ConsoleReads.runsById(tx, open.keySet()).stream()
                .collect(Collectors.toMap(OpenRun::id, Function.identity()));
        open.keySet().retainAll(current.keySet());
        for (OpenRun r : current.values()) {
            if (r.state().isTerminal()) {
                open.remove(r.id());
                addEnded(new HourRow(r.hour(), r.state(), 1, r.lagSeconds()));
            } else {
                open.put(r.id(), r);
            }
        }
    }

    private void addEnded(HourRow row) {
        ended.merge(new Key(row.hour(), row.state()), row, RecentHours::sum);
    }

    /** One row per hour and state, by hour. */
    static List<HourRow> merge(List<HourRow> rows) {
        Map<Key, HourRow> byKey = new HashMap<>();
        rows.forEach(r -> byKey.merge(new Key(r.hour(), r.state()), r, RecentHours::sum));
        return byKey.values().stream()
                .sorted(Comparator.comparingLong(HourRow::hour).thenComparing(HourRow::state))
                .toList();
    }

    private static HourRow sum(HourRow a, HourRow b) {
        return new HourRow(a.hour(), a.state(), a.runs() + b.runs(), max(a.maxLagSeconds(), b.maxLagSeconds()));
    }

    private static Double max(Double a, Double b) {
        return a == null ? b : b == null ? a : Double.valueOf(Math.max(a, b));
    }
}
