package dev.ax.bench;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;

/**
 * Finished runs written in bulk SQL, each with the three events and the chunk of output the scheduler and an executor
 * leave: spread evenly over a span ending at a given instant, run {@code g} of {@code runs} belonging to the task
 * {@code g mod tasks} (every task of the store, by id), 2.5 % failed, some manual and backfill runs. Written oldest
 * first, so ids ascend with time as they do on a live system (retention walks the tables by id).
 *
 * @param runs       how many runs the whole history holds
 * @param span       how long the history reaches back from {@code end}
 * @param requestIds whether each run carries a request id, as the runs of a task with {@code policy.idempotencyKey}
 *                   do; retention keeps every success that holds one, so a history meant to expire has none
 */
record HistorySeed(long runs, Duration span, Instant end, boolean requestIds) {

    /** The milliseconds between two runs. */
    double spacingMillis() {
        return span.toMillis() / (double) runs;
    }

    /**
     * Writes runs {@code from..to} (1-based, inclusive) with their events (what a lean run keeps: who started a manual
     * run, a failure) and output, and moves the alert tail past the
     * events (a live server's tail is caught up; a bulk load is not something it should replay).
     *
     * @return how many runs were written
     */
    long insert(Statement s, long from, long to) throws SQLException {
        long tasks = one(s, "SELECT COUNT(*) FROM ax_task");
        // A task's runs are `tasks` runs apart, each slot a whole second (as a cron slot is): one slot per fire key.
        if (tasks == 0 || spacingMillis() * tasks < 1000) {
            throw new IllegalArgumentException(String.format(
                    "%,d runs over %s for %,d tasks put two runs of a task in the same second", runs, span, tasks));
        }
        long before = one(s, "SELECT COALESCE(MAX(id), 0) FROM ax_instance");
        String at = "date_trunc('second', TIMESTAMPTZ '" + end + "' - (" + runs + " - g) * interval '"
                + String.format(Locale.ROOT, "%.6f", spacingMillis()) + " milliseconds')";
        s.execute(
                "INSERT INTO ax_instance (task_id, task_name, task_version, cause, fire_key, scheduled_at, state, attempt,"
                        + " max_attempts, executor_group, ready_at, executor_id, pid, exit_code, failure_kind, message, actor, node_id,"
                        + " request_id, created_at, started_at, finished_at, updated_at, claim_node, pid_at, start_node, end_node)"
                        + " SELECT t.id, t.name, 1, CASE WHEN g % 50 = 0 THEN 'MANUAL' WHEN g % 997 = 0 THEN 'BACKFILL' ELSE 'CRON' END,"
                        // A scheduled run is keyed by its slot as Firing.fireKey writes it (Instant.toString()).
                        + " CASE WHEN g % 50 = 0 OR g % 997 = 0 THEN 'b:' || g ELSE to_char(x.at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"') END,"
                        + " x.at, CASE WHEN g % 40 = 0 THEN 'FAILED' ELSE 'SUCCESS' END, 1, 1, 'default', x.at,"
                        + " 'bench-executor-' || (g % 20), 1000 + g % 30000, CASE WHEN g % 40 = 0 THEN 1 ELSE 0 END,"
                        + " CASE WHEN g % 40 = 0 THEN 'EXIT_CODE' END, CASE WHEN g % 40 = 0 THEN 'exited with code 1' END,"
                        + " 'scheduler', 'bench', " + (requestIds ? "'req-' || g" : "NULL") + ","
                        + " x.at + interval '4 ms', x.at + interval '15 ms', x.at + interval '2 s', x.at + interval '2 s',"
                        // A lean run (V40): its routine steps are these columns, not events.
                        + " 'bench', x.at + interval '20 ms', 'bench', CASE WHEN g % 40 = 0 THEN NULL ELSE 'bench' END"
                        + " FROM generate_series(" + from + ", " + to + ") g"
                        + " CROSS JOIN LATERAL (SELECT " + at + " AS at) x"
                        + " JOIN (SELECT id, name, row_number() OVER (ORDER BY id) - 1 AS k FROM ax_task) t"
                        + " ON t.k = g % " + tasks + " ORDER BY g");
        String mine = " WHERE i.id > " + before;
        // What stays an event: who started a manual run, and a failure.
        s.execute(
                "INSERT INTO ax_event (instance_id, task_id, task_name, type, from_state, to_state, attempt, actor, node_id, at, message)"
                        + " SELECT i.id, i.task_id, i.task_name, e.type, e.from_state, e.to_state, e.attempt, e.actor, 'bench', e.at,"
                        + " e.message FROM ax_instance i CROSS JOIN LATERAL (VALUES"
                        + " ('CREATED', NULL, 'READY', 0, 'bench-user', i.created_at, NULL, i.cause = 'MANUAL'),"
                        + " ('FAILED', 'RUNNING', 'FAILED', 1, 'executor:' || i.executor_id, i.finished_at, 'exited with code 1',"
                        + " i.state = 'FAILED')) AS e(type, from_state, to_state, attempt, actor, at, message, wanted)"
                        + mine + " AND e.wanted ORDER BY i.id, e.at");
        s.execute("UPDATE ax_alert_cursor SET last_event_id = (SELECT MAX(id) FROM ax_event) WHERE id = 1");
        s.execute("INSERT INTO ax_log (instance_id, attempt, stream, at, text)"
                + " SELECT i.id, 1, 'stdout', i.started_at, 'report for ' || to_char(i.scheduled_at, 'YYYY-MM-DD')"
                + " || E'\\nrows written: ' || (i.id % 1000) || E'\\n' FROM ax_instance i" + mine + " ORDER BY i.id");
        return to - from + 1;
    }

    static long one(Statement s, String sql) throws SQLException {
        try (ResultSet r = s.executeQuery(sql)) {
            r.next();
            return r.getLong(1);
        }
    }
}
