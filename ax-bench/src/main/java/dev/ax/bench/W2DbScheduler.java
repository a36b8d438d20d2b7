package dev.ax.bench;

import com.github.kagkarlsson.scheduler.Scheduler;
import com.github.kagkarlsson.scheduler.task.TaskInstance;
import com.github.kagkarlsson.scheduler.task.helper.OneTimeTask;
import com.github.kagkarlsson.scheduler.task.helper.Tasks;
import com.zaxxer.hikari.HikariDataSource;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;

/** db-scheduler's side of W2: the burst as one-time executions scheduled in batches, drained by its scheduler. */
final class W2DbScheduler {
    private W2DbScheduler() {}

    /**
     * Drains {@code r} one-time executions due at once with {@code threads} threads polling every {@code pollMillis}
     * (lock-and-fetch), for at most {@code timeoutSeconds}; the figures as {@link W2Command#record} writes them.
     */
    static Map<String, Object> drain(Pg pg, int r, int threads, long pollMillis, int timeoutSeconds) {
        String db = "dbsched_bench";
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("system", "db-scheduler");
        out.put(
                "config",
                "db-scheduler " + W1Systems.dbSchedulerVersion() + ", one OneTimeTask, " + threads
                        + " threads, pollUsingLockAndFetch(0.5, 1.0), pollingInterval " + pollMillis + " ms");
        out.put("insertPath", "SchedulerClient.scheduleBatch");
        pg.recreate(db);
        pg.runScript(db, W1Systems.DB_SCHEDULER_DDL);
        Window w = new Window(pg, db);
        RunLog log = new RunLog();
        Instant t0;
        try (HikariDataSource ds = pg.pool(db, threads + 5, true, "dbsched")) {
            OneTimeTask<Void> burst = Tasks.oneTime("burst")
                    .execute((instance, ctx) -> log.add(
                            Long.parseLong(instance.getId()),
                            ctx.getExecution().executionTime.toEpochMilli(),
                            System.currentTimeMillis()));
            Scheduler scheduler = Scheduler.create(ds, burst)
                    .threads(threads)
                    .pollUsingLockAndFetch(0.5, 1.0)
                    .pollingInterval(Duration.ofMillis(pollMillis))
                    .shutdownMaxWait(Duration.ofSeconds(5))
                    .build();
            long t = System.nanoTime();
            Instant due = Instant.now();
            for (int from = 0; from < r; from += 1000) {
                List<TaskInstance<?>> chunk = new ArrayList<>(1000);
                for (int i = from; i < Math.min(r, from + 1000); i++) {
                    chunk.add(burst.instance(Integer.toString(i)));
                }
                scheduler.scheduleBatch(chunk, due);
            }
            out.put("insertsPerSecond", W1Stats.round(r / ((System.nanoTime() - t) / 1e9)));
            pg.analyze(db, "scheduled_tasks");
            try {
                w.begin();
                t0 = Instant.now();
                scheduler.start();
                long deadline =
                        System.nanoTime() + Duration.ofSeconds(timeoutSeconds).toNanos();
                while (log.size() < r && System.nanoTime() < deadline) {
                    Window.sleep(20);
                }
                // Done means the execution row is gone (db-scheduler deletes a finished one-time execution).
                while (System.nanoTime() < deadline && pg.scalar(db, "SELECT COUNT(*) FROM scheduled_tasks") > 0) {
                    Window.sleep(20);
                }
                w.end();
            } finally {
                scheduler.stop();
            }
        }
        w.afterStop();
        RunLog.Runs runs = log.snapshot();
        Histogram lag = new Histogram(3_600_000L, 3);
        long start = t0.toEpochMilli();
        for (int i = 0; i < runs.size(); i++) {
            lag.recordValue(Math.clamp(runs.started()[i] - start, 0, 3_600_000L));
        }
        W2Command.record(out, lag, runs.size(), r, start, w.t1Millis);
        out.put("t0", t0.toString());
        out.putAll(w.costs(runs.size(), pg.tableSizes(db, "scheduled_tasks")));
        return out;
    }
}
