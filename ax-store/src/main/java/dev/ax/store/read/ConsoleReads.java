package dev.ax.store.read;

import dev.ax.domain.run.Cause;
import dev.ax.domain.run.RunState;
import dev.ax.store.Dialect;
import dev.ax.store.Tx;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The read-only queries of the console's lists and dashboard. Every one is bounded:
 * a LIMIT on an indexed order, or a count over an indexed range (see docs/console.md for which
 * index serves which, and which would need one at a million runs).
 */
public final class ConsoleReads {
    private static final String RUN_COLUMNS =
            "id, task_id, task_name, task_version, cause, state, attempt, max_attempts,"
                    + " scheduled_at, created_at, started_at, finished_at, executor_id, exit_code, actor";

    private ConsoleReads() {}

    /** A run as a list shows it. */
    public record RunListRow(
            long id,
            long taskId,
            String taskName,
            int taskVersion,
            Cause cause,
            RunState state,
            int attempt,
            int maxAttempts,
            Instant scheduledAt,
            Instant createdAt,
            Instant startedAt,
            Instant finishedAt,
            String executorId,
            Integer exitCode,
            String actor) {}

    /**
     * Runs created in one UTC hour (hours since the epoch) that are now in {@code state};
     * {@code maxLagSeconds} is the largest fire lag (created − scheduled) of the scheduled ones.
     */
    public record HourRow(long hour, RunState state, long runs, Double maxLagSeconds) {}

    /**
     * Filters of the runs list; null = any. {@code taskIds} are the ids a task name has had (one while
     * the task exists, more if it was deleted and created again); {@code fromId} is the first run id
     * of the time filter (0 = any time).
     */
    public record RunListFilter(List<Long> taskIds, RunState state, Cause cause, long fromId) {}

    /**
     * The first run id created at or after {@code since}, found by bisecting the primary key
     * (about 20 single-row lookups at a million runs) instead of scanning {@code created_at},
     * which has no index. Ids grow with creation time; a run created in a transaction that
     * started earlier may be off by that transaction's length, which a dashboard can bear.
     */
    public static long firstIdSince(Tx tx, Instant since) {
        long[] bounds = tx.queryOne("SELECT MIN(id) AS lo, MAX(id) AS hi FROM ax_instance", r ->
                        new long[] {r.lng("lo"), r.lng("hi")})
                .orElse(new long[] {0, 0});
        long lo = bounds[0];
        long hi = bounds[1] + 1;
        while (lo < hi) {
            long mid = lo + (hi - lo) / 2;
            Object[] first = tx.queryOne(
                            "SELECT id, created_at FROM ax_instance WHERE id >= ? ORDER BY id LIMIT 1",
                            r -> new Object[] {r.lng("id"), r.instant("created_at")},
                            mid)
                    .orElse(null);
            if (first == null || !((Instant) first[1]).isBefore(since)) {
                hi = mid;
            } else {
                lo = (long) first[0] + 1;
            }
        }
        return lo;
    }

    /**
     * Runs since {@code fromId} by UTC hour and current state, with the worst fire lag: one pass
     * over the window gives both the outcome counts and the chart.
     */
    public static List<HourRow> hourly(Tx tx, long fromId) {
        return hourly(tx, fromId, Long.MAX_VALUE);
    }

    /** {@link #hourly(Tx, long)} for the runs with {@code fromId <= id < toId}. */
    public static List<HourRow> hourly(Tx tx, long fromId, long toId) {
        return hourly(tx, fromId, toId, "");
    }

    /** {@link #hourly(Tx, long, long)} of the runs that have ended (which never change state again). */
    public static List<HourRow> hourlyEnded(Tx tx, long fromId, long toId) {
        return hourly(tx, fromId, toId, " AND state IN (" + TERMINAL + ")");
    }

    private static List<HourRow> hourly(Tx tx, long fromId, long toId, String andState) {
        Dialect d = tx.dialect();
        String hour = hourOf(d);
        return tx.query(
                "SELECT " + hour + " AS hr, state, COUNT(*) AS n, MAX(" + lagOf(d) + ") AS lag"
                        + " FROM ax_instance WHERE id >= ? AND id < ?" + andState
                        + " GROUP BY " + hour + ", state ORDER BY hr",
                r -> new HourRow(r.lng("hr"), r.enumOf(RunState.class, "state"), r.lng("n"), lag(r.str("lag"))),
                fromId,
                toId);
    }

    /** A run that has not ended, as {@link HourRow} counts it: its UTC hour, state and fire lag. */
    public record OpenRun(long id, long hour, RunState state, Double lagSeconds) {}

    /** The runs with {@code fromId <= id < toId} that have not ended. */
    public static List<OpenRun> openRuns(Tx tx, long fromId, long toId) {
        return tx.query(
                openRunSelect(tx.dialect()) + " WHERE id >= ? AND id < ? AND state NOT IN (" + TERMINAL + ")",
                ConsoleReads::openRun,
                fromId,
                toId);
    }

    /** The runs of {@code ids} that still exist, in whatever state they are now. */
    public static List<OpenRun> runsById(Tx tx, Collection<Long> ids) {
        List<OpenRun> out = new ArrayList<>();
        List<Long> all = List.copyOf(ids);
        for (int i = 0; i < all.size(); i += IN_CHUNK) {
            List<Long> part = all.subList(i, Math.min(all.size(), i + IN_CHUNK));
            out.addAll(tx.query(
                    openRunSelect(tx.dialect()) + " WHERE id IN ("
                            + String.join(", ", Collections.nCopies(part.size(), "?")) + ")",
                    ConsoleReads::openRun,
                    part.toArray()));
        }
        return out;
    }

    private static final int IN_CHUNK = 500;

    private static final String TERMINAL = Arrays.stream(RunState.values())
            .filter(RunState::isTerminal)
            .map(Tx::literal)
            .collect(Collectors.joining(", "));

    private static String openRunSelect(Dialect d) {
        return "SELECT id, " + hourOf(d) + " AS hr, state, " + lagOf(d) + " AS lag FROM ax_instance";
    }

    private static OpenRun openRun(Tx.Row r) throws SQLException {
        return new OpenRun(r.lng("id"), r.lng("hr"), r.enumOf(RunState.class, "state"), lag(r.str("lag")));
    }

    private static String hourOf(Dialect d) {
        return "FLOOR(" + d.epochSeconds("created_at") + " / 3600)";
    }

    /** The fire lag of a scheduled run (created − scheduled); manual and other runs have no slot to be late for. */
    private static String lagOf(Dialect d) {
        return "CASE WHEN cause IN ('CRON', 'INTERVAL') THEN " + d.secondsBetween("scheduled_at", "created_at")
                + " END";
    }

    private static Double lag(String text) {
        return text == null ? null : Double.valueOf(text);
    }

    /** The newest runs in one state. */
    public static List<RunListRow> inState(Tx tx, RunState state, int limit) {
        return tx.query(
                "SELECT " + RUN_COLUMNS + " FROM ax_instance WHERE state = " + Tx.literal(state)
                        + " ORDER BY id DESC LIMIT ?",
                ConsoleReads::run,
                limit);
    }

    /** FAILED runs since {@code fromId} that nobody has retried, re-run or compensated yet. */
    public static List<RunListRow> failedUnhandled(Tx tx, long fromId, int limit) {
        return tx.query(
                "SELECT " + RUN_COLUMNS + " FROM ax_instance i WHERE i.state = 'FAILED' AND i.id >= ?"
                        + " AND NOT EXISTS (SELECT 1 FROM ax_instance c WHERE c.parent_id = i.id)"
                        + " ORDER BY i.id DESC LIMIT ?",
                ConsoleReads::run,
                fromId,
                limit);
    }

    /** Runs newest first, before {@code beforeId} (the page cursor). */
    public static List<RunListRow> runs(Tx tx, RunListFilter f, long beforeId, int limit) {
        StringBuilder sql = new StringBuilder("SELECT " + RUN_COLUMNS + " FROM ax_instance WHERE id < ? AND id >= ?");
        List<Object> args = new ArrayList<>(List.of(beforeId, f.fromId()));
        if (f.taskIds() != null) {
            if (f.taskIds().isEmpty()) {
                return List.of();
            }
            sql.append(" AND task_id IN (").append(marks(f.taskIds().size())).append(")");
            args.addAll(f.taskIds());
        }
        if (f.state() != null) {
            sql.append(" AND state = ").append(Tx.literal(f.state()));
        }
        if (f.cause() != null) {
            sql.append(" AND cause = ").append(Tx.literal(f.cause()));
        }
        sql.append(" ORDER BY id DESC LIMIT ?");
        args.add(limit);
        return tx.query(sql.toString(), ConsoleReads::run, args.toArray());
    }

    /** The ids a task name has had, from the version history (which outlives a deleted task). */
    public static List<Long> taskIdsNamed(Tx tx, String name) {
        return tx.query(
                "SELECT DISTINCT task_id FROM ax_task_version WHERE task_name = ?", r -> r.lng("task_id"), name);
    }

    /**
     * The state of each task's newest run (previews aside). One statement, one indexed
     * single-row probe per task: cheap however many runs a task has.
     */
    public static Map<Long, RunState> lastStates(Tx tx, List<Long> taskIds) {
        Map<Long, RunState> out = new HashMap<>();
        if (taskIds.isEmpty()) {
            return out;
        }
        String one =
                "(SELECT task_id, state FROM ax_instance WHERE task_id = ? AND cause <> 'PREVIEW' ORDER BY id DESC LIMIT 1)";
        tx.query(
                String.join(" UNION ALL ", Collections.nCopies(taskIds.size(), one)),
                r -> {
                    out.put(r.lng("task_id"), r.enumOf(RunState.class, "state"));
                    return null;
                },
                taskIds.toArray());
        return out;
    }

    private static String marks(int n) {
        return String.join(", ", Collections.nCopies(n, "?"));
    }

    private static RunListRow run(Tx.Row r) throws SQLException {
        return new RunListRow(
                r.lng("id"),
                r.lng("task_id"),
                r.str("task_name"),
                r.integer("task_version"),
                r.enumOf(Cause.class, "cause"),
                r.enumOf(RunState.class, "state"),
                r.integer("attempt"),
                r.integer("max_attempts"),
                r.instant("scheduled_at"),
                r.instant("created_at"),
                r.instant("started_at"),
                r.instant("finished_at"),
                r.str("executor_id"),
                r.nullableInt("exit_code"),
                r.str("actor"));
    }
}
