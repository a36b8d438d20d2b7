package dev.ax.bench;

import com.github.kagkarlsson.scheduler.Scheduler;
import com.github.kagkarlsson.scheduler.task.helper.RecurringTask;
import com.github.kagkarlsson.scheduler.task.helper.Tasks;
import com.github.kagkarlsson.scheduler.task.schedule.Schedules;
import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import org.quartz.CronScheduleBuilder;
import org.quartz.Job;
import org.quartz.JobBuilder;
import org.quartz.JobDetail;
import org.quartz.JobExecutionContext;
import org.quartz.SchedulerException;
import org.quartz.Trigger;
import org.quartz.TriggerBuilder;
import org.quartz.impl.StdSchedulerFactory;
import org.quartz.utils.ConnectionProvider;

/**
 * Workload W1, "dense schedule": N recurring tasks each due every second, a no-op body, run by
 * AX ({@link W1Ax}), Quartz and db-scheduler on the same PostgreSQL, one after the other, each on a freshly
 * created database. Every runner returns the same figures (see {@link W1Stats}) plus its costs.
 */
final class W1Systems {
    static final long GRACE_MILLIS = 2000;

    private W1Systems() {}

    record Settings(
            int tasks,
            int warmup,
            int seconds,
            int axConsumers,
            int axBatch,
            String axOverflow,
            int threads,
            int quartzBatch,
            long dbSchedulerPollMillis) {}

    static Map<String, Long> states(BenchDb pg, String db) {
        return states(pg, db, 0);
    }

    /** How many of AX's runs with an id above {@code afterId} are in each state. */
    static Map<String, Long> states(BenchDb pg, String db, long afterId) {
        Map<String, Long> m = new LinkedHashMap<>();
        try (Connection c = pg.connect(db);
                Statement st = c.createStatement();
                ResultSet r = st.executeQuery("SELECT state, COUNT(*) FROM ax_instance WHERE id > " + afterId
                        + " GROUP BY state ORDER BY state")) {
            while (r.next()) {
                m.put(r.getString(1), r.getLong(2));
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
        return m;
    }

    // ---- Quartz ---------------------------------------------------------------------------

    /** Quartz's JDBC job store gets its connections from the harness's pool. */
    public static final class QuartzConnections implements ConnectionProvider {
        static volatile HikariDataSource dataSource;

        @Override
        public Connection getConnection() throws SQLException {
            return dataSource.getConnection();
        }

        @Override
        public void shutdown() {}

        @Override
        public void initialize() {}
    }

    /** The no-op job: notes its slot (the trigger's scheduled fire time) and when it started. */
    public static final class QuartzNoopJob implements Job {
        static volatile RunLog log;

        @Override
        public void execute(JobExecutionContext context) {
            long now = System.currentTimeMillis();
            String name = context.getJobDetail().getKey().getName();
            log.add(
                    Long.parseLong(name.substring(1)),
                    context.getScheduledFireTime().getTime(),
                    now);
        }
    }

    static Properties quartzProperties(String instanceName, int threads, int batch) {
        Properties p = new Properties();
        p.setProperty("org.quartz.scheduler.instanceName", instanceName);
        p.setProperty("org.quartz.scheduler.instanceId", "AUTO");
        p.setProperty("org.quartz.scheduler.skipUpdateCheck", "true");
        p.setProperty("org.quartz.scheduler.batchTriggerAcquisitionMaxCount", Integer.toString(batch));
        p.setProperty("org.quartz.threadPool.class", "org.quartz.simpl.SimpleThreadPool");
        p.setProperty("org.quartz.threadPool.threadCount", Integer.toString(threads));
        p.setProperty("org.quartz.jobStore.class", "org.quartz.impl.jdbcjobstore.JobStoreTX");
        p.setProperty("org.quartz.jobStore.driverDelegateClass", "org.quartz.impl.jdbcjobstore.PostgreSQLDelegate");
        p.setProperty("org.quartz.jobStore.dataSource", "bench");
        p.setProperty("org.quartz.jobStore.isClustered", "true");
        // Quartz's documentation asks for this whenever batchTriggerAcquisitionMaxCount > 1.
        p.setProperty("org.quartz.jobStore.acquireTriggersWithinLock", "true");
        p.setProperty("org.quartz.dataSource.bench.connectionProvider.class", QuartzConnections.class.getName());
        return p;
    }

    static Map<String, Object> quartz(Pg pg, Settings s) {
        String db = "quartz_bench";
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("system", "Quartz");
        out.put(
                "config",
                "Quartz 2.5.2 JobStoreTX, PostgreSQLDelegate, clustered, " + s.threads()
                        + " threads, batchTriggerAcquisitionMaxCount " + s.quartzBatch()
                        + ", acquireTriggersWithinLock; cron '* * * * * ?'; tables_postgres.sql from the quartz jar");
        long setup = System.nanoTime();
        pg.recreate(db);
        pg.runScript(db, "org/quartz/impl/jdbcjobstore/tables_postgres.sql");
        Window w = new Window(pg, db);
        RunLog log = new RunLog();
        QuartzNoopJob.log = log;
        try (HikariDataSource ds = pg.pool(db, s.threads() + 5, false, "quartz")) {
            QuartzConnections.dataSource = ds;
            org.quartz.Scheduler scheduler = new StdSchedulerFactory(
                            quartzProperties("bench-" + System.nanoTime(), s.threads(), s.quartzBatch()))
                    .getScheduler();
            try {
                Map<JobDetail, Set<? extends Trigger>> jobs = new HashMap<>();
                for (int i = 0; i < s.tasks(); i++) {
                    JobDetail job = JobBuilder.newJob(QuartzNoopJob.class)
                            .withIdentity("j" + i, "bench")
                            .build();
                    Trigger trigger = TriggerBuilder.newTrigger()
                            .withIdentity("t" + i, "bench")
                            .forJob(job)
                            .withSchedule(CronScheduleBuilder.cronSchedule("* * * * * ?"))
                            .startNow()
                            .build();
                    jobs.put(job, Set.of(trigger));
                }
                scheduler.scheduleJobs(jobs, true);
                out.put("setupSeconds", secondsSince(setup));
                firstSlotsAtStart(
                        pg,
                        db,
                        s.tasks(),
                        "UPDATE qrtz_triggers SET next_fire_time = CAST(EXTRACT(EPOCH FROM " + NEXT_WHOLE_SECOND
                                + ") * 1000 AS BIGINT)");
                scheduler.start();
                w.measure(s.warmup(), s.seconds());
                Window.sleep(GRACE_MILLIS);
            } finally {
                // Standby first: shutting down while the trigger thread is inside a transaction only produces noise.
                scheduler.standby();
                Window.sleep(500);
                Main.quiet("org.quartz", "com.zaxxer.hikari");
                try {
                    scheduler.shutdown(true);
                } finally {
                    Main.quietLogs();
                }
            }
        } catch (SchedulerException e) {
            throw new IllegalStateException("Quartz: " + e.getMessage(), e);
        }
        w.afterStop();
        RunLog.Runs runs = log.snapshot();
        out.putAll(W1Stats.evaluate(runs, s.tasks(), w.t0Millis, w.t1Millis, GRACE_MILLIS)
                .toMap());
        out.putAll(w.costs(countSince(runs, w.t0Millis), pg.tableSizes(db, "qrtz_")));
        return out;
    }

    // ---- db-scheduler ---------------------------------------------------------------------

    static final String DB_SCHEDULER_DDL = "dev/ax/bench/db-scheduler-postgresql_tables.sql";

    static Map<String, Object> dbScheduler(Pg pg, Settings s) {
        String db = "dbsched_bench";
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("system", "db-scheduler");
        out.put(
                "config",
                "db-scheduler " + dbSchedulerVersion() + ", " + s.tasks()
                        + " RecurringTasks with Schedules.cron(\"* * * * * *\"), "
                        + s.threads() + " threads, pollUsingLockAndFetch(0.5, 1.0), pollingInterval "
                        + s.dbSchedulerPollMillis() + " ms"
                        + "; its cron schedules the next run 1 s after the previous one completed (sub-second part kept), so lag never accumulates but runs drift past slots");
        long setup = System.nanoTime();
        pg.recreate(db);
        pg.runScript(db, DB_SCHEDULER_DDL);
        Window w = new Window(pg, db);
        RunLog log = new RunLog();
        try (HikariDataSource ds = pg.pool(db, s.threads() + 5, true, "dbsched")) {
            List<RecurringTask<Void>> tasks = new ArrayList<>(s.tasks());
            for (int i = 0; i < s.tasks(); i++) {
                long index = i;
                tasks.add(Tasks.recurring("w1-" + i, Schedules.cron("* * * * * *"))
                        .execute((instance, ctx) -> log.add(
                                index, ctx.getExecution().executionTime.toEpochMilli(), System.currentTimeMillis())));
            }
            Scheduler scheduler = Scheduler.create(ds)
                    .startTasks(tasks)
                    .threads(s.threads())
                    .pollUsingLockAndFetch(0.5, 1.0)
                    .pollingInterval(Duration.ofMillis(s.dbSchedulerPollMillis()))
                    .shutdownMaxWait(Duration.ofSeconds(5))
                    .build();
            try {
                scheduler.start();
                out.put("setupSeconds", secondsSince(setup));
                w.measure(s.warmup(), s.seconds());
                Window.sleep(GRACE_MILLIS);
            } finally {
                scheduler.stop();
            }
        }
        w.afterStop();
        RunLog.Runs runs = log.snapshot();
        out.putAll(W1Stats.evaluate(runs, s.tasks(), w.t0Millis, w.t1Millis, GRACE_MILLIS)
                .toMap());
        out.putAll(w.costs(countSince(runs, w.t0Millis), pg.tableSizes(db, "scheduled_tasks")));
        return out;
    }

    static String dbSchedulerVersion() {
        try (var in = Scheduler.class.getResourceAsStream(
                "/META-INF/maven/com.github.kagkarlsson/db-scheduler/pom.properties")) {
            Properties p = new Properties();
            p.load(in);
            return p.getProperty("version", "16.x");
        } catch (Exception e) {
            return "16.x";
        }
    }

    /** The first whole second after the database's now. */
    static final String NEXT_WHOLE_SECOND = "date_trunc('second', CURRENT_TIMESTAMP) + INTERVAL '1 second'";

    /**
     * Moves every task's first slot to the first whole second after now, just before the system starts: each
     * system starts with its N tasks first due together, as db-scheduler's recurring tasks are when its scheduler
     * starts. The tasks were created before the start, one after another (AX's 10,000 in some 14 s here); left as
     * created, the slots that passed meanwhile are due at the start, and both AX (each slot less late than its 60 s
     * scan window) and Quartz (each trigger less late than its 60 s misfire threshold) catch them up: a backlog of
     * about N × setup / 2 runs before the warm-up begins, which measures the catching up, not the schedule.
     * {@code update} sets the first slot of every task.
     */
    static void firstSlotsAtStart(BenchDb pg, String db, int tasks, String update) {
        long moved = pg.update(db, update);
        if (moved != tasks) {
            throw new IllegalStateException("moved the first slot of " + moved + " tasks, expected " + tasks);
        }
    }

    static long countSince(RunLog.Runs runs, long t0) {
        long n = 0;
        for (long started : runs.started()) {
            if (started >= t0) {
                n++;
            }
        }
        return n;
    }

    static double secondsSince(long nanoStart) {
        return Math.round((System.nanoTime() - nanoStart) / 1e8) / 10.0;
    }

    static Set<String> systems(String csv) {
        Set<String> set = new HashSet<>();
        for (String sys : Pg.split(csv.toLowerCase())) {
            set.add(
                    switch (sys) {
                        case "ax" -> "ax";
                        case "ax-mariadb", "mariadb" -> "ax-mariadb";
                        case "quartz" -> "quartz";
                        case "db-scheduler", "dbscheduler", "dbs" -> "db-scheduler";
                        default ->
                            throw new IllegalArgumentException(
                                    "--systems: unknown system " + sys + " (ax, ax-mariadb, quartz, db-scheduler)");
                    });
        }
        return set;
    }
}
