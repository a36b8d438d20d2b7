package dev.ax.store.read;

import dev.ax.store.Tx;
import java.time.Instant;
import java.util.List;

/**
 * The few small reads the watchdog, {@code /healthz} and the gauges are made of, each bounded by an
 * index and judged by the database's clock. Every one stays cheap on a big history: the newest runs
 * are found by walking the primary key backwards, the backlog through the READY index.
 */
public final class HealthReads {
    private HealthReads() {}

    /** The newest run; both null when there is none. */
    public record Newest(Long id, Instant createdAt) {}

    /** How many (runs, tasks) and the oldest moment among them; {@code oldest} null when none. */
    public record Backlog(long count, Instant oldest) {}

    /**
     * How much history the database holds: rows of runs, events and log chunks, and the oldest run and
     * event. On PostgreSQL the row counts are the planner's estimates ({@code pg_class.reltuples},
     * kept by ANALYZE and autovacuum) and on MariaDB InnoDB's ({@code information_schema.TABLES}), so
     * asking costs nothing however large the tables; on H2 they are exact. The oldest rows are found at the start of the primary key.
     */
    public record History(long runs, long events, long logChunks, Instant oldestRunAt, Instant oldestEventAt) {}

    public static History history(Tx tx) {
        return new History(
                rows(tx, "ax_instance"),
                rows(tx, "ax_event"),
                rows(tx, "ax_log"),
                tx.queryOne("SELECT created_at FROM ax_instance ORDER BY id LIMIT 1", r -> r.instant("created_at"))
                        .orElse(null),
                tx.queryOne("SELECT at FROM ax_event ORDER BY id LIMIT 1", r -> r.instant("at"))
                        .orElse(null));
    }

    private static long rows(Tx tx, String table) {
        return tx.queryOne(tx.dialect().rowCount(table), r -> r.lng("n")).orElse(0L);
    }

    public static Newest newestRun(Tx tx) {
        return tx.queryOne(
                        "SELECT id, created_at FROM ax_instance ORDER BY id DESC LIMIT 1",
                        r -> new Newest(r.lng("id"), r.instant("created_at")))
                .orElse(new Newest(null, null));
    }

    /** The READY runs and the oldest of their ready times, in one pass over the READY index. */
    public static Backlog ready(Tx tx) {
        return tx.queryOne(
                        "SELECT COUNT(*) AS n, MIN(ready_at) AS oldest FROM ax_instance WHERE state = 'READY'",
                        r -> new Backlog(r.lng("n"), r.instant("oldest")))
                .orElse(new Backlog(0, null));
    }

    /** The executor groups that have a run READY for longer than {@code graceMillis}. */
    public static List<String> groupsWaitingLongerThan(Tx tx, long graceMillis) {
        return tx.query(
                "SELECT DISTINCT executor_group FROM ax_instance WHERE state = 'READY' AND ready_at < "
                        + tx.dialect().plusMillis("CURRENT_TIMESTAMP") + " ORDER BY executor_group",
                r -> r.str("executor_group"),
                -graceMillis);
    }

    /** When the newest run a schedule (cron or interval) created was created; null if none ever was. */
    public static Instant lastScheduledRunAt(Tx tx) {
        return tx.queryOne(
                        "SELECT created_at FROM ax_instance WHERE cause IN ('CRON', 'INTERVAL')"
                                + " ORDER BY id DESC LIMIT 1",
                        r -> r.instant("created_at"))
                .orElse(null);
    }

    /** Enabled tasks whose next slot is older than {@code silenceMillis}, and the oldest such slot. */
    public static Backlog overdueTasks(Tx tx, long silenceMillis) {
        return tx.queryOne(
                        "SELECT COUNT(*) AS n, MIN(next_fire_at) AS oldest FROM ax_task WHERE enabled = TRUE"
                                + " AND next_fire_at < " + tx.dialect().plusMillis("CURRENT_TIMESTAMP"),
                        r -> new Backlog(r.lng("n"), r.instant("oldest")),
                        -silenceMillis)
                .orElse(new Backlog(0, null));
    }
}
