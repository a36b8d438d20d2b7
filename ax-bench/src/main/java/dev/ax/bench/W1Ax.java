package dev.ax.bench;

import static dev.ax.bench.W1Systems.GRACE_MILLIS;
import static dev.ax.bench.W1Systems.firstSlotsAtStart;
import static dev.ax.bench.W1Systems.secondsSince;

import dev.ax.bench.W1Systems.Settings;
import dev.ax.scheduler.SchedulerConfig;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import org.HdrHistogram.Histogram;

/**
 * AX's side of W1: a {@code SchedulerNode} with no-op consumers ({@link AxHarness}) running N tasks each due every
 * second. {@code w1} runs it on an empty database of its own; {@code history} also on one a previous step filled, with
 * a configuration of its own and probes watching the same window.
 */
final class W1Ax {
    private W1Ax() {}

    /**
     * Where and how AX runs W1.
     *
     * @param seeded  the database exists with W1's tasks (and whatever history a previous step left): it is neither
     *                recreated nor given tasks
     * @param probes  what else reads the measured window's ends, made once the node is open and before it starts
     */
    record Target(
            String database,
            boolean seeded,
            SchedulerConfig config,
            Function<AxHarness, List<? extends Window.Probe>> probes) {
        /** What {@code w1} measures: a database of its own created empty, AX's defaults, nothing else watching. */
        static final Target W1 = new Target("ax_bench", false, SchedulerConfig.DEFAULT, ax -> List.of());
    }

    /**
     * The runs this measurement judges are those above this id: on a database a previous step left, its history and
     * its runs, except any it left waiting (those are handed out in the warm-up and must be found then). Zero on an
     * empty database.
     */
    private static final String FLOOR = "SELECT COALESCE(LEAST((SELECT MAX(id) FROM ax_instance),"
            + " (SELECT MIN(id) - 1 FROM ax_instance WHERE state = 'READY'),"
            + " (SELECT MIN(id) - 1 FROM ax_instance WHERE state = 'RUNNING')), 0)";

    /** W1's tasks: {@code w1-00000}... with cron every second, created through {@code Tasks.create}. */
    static void createTasks(AxHarness ax, Settings s) {
        Map<String, Object> cron = Map.of("type", "cron", "expression", "* * * * * *", "timezone", "UTC");
        ax.createTasks(s.tasks(), i -> AxHarness.task(String.format("w1-%05d", i), cron, s.axOverflow()), 4);
    }

    static Map<String, Object> run(BenchDb pg, Settings s, Target target) {
        String db = target.database();
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("system", pg.axSystem());
        out.put(
                "config",
                "SchedulerNode on " + pg.product() + ", " + s.axConsumers() + " no-op consumers polling " + s.axBatch()
                        + " runs at a time through the Dispatcher, a run's start noted when its consumer gets it; cron '* * * * * *', overflow "
                        + (s.axOverflow() == null ? "default (maxConcurrency 1, QUEUE)" : s.axOverflow()));
        long setup = System.nanoTime();
        Window w = new Window(pg, db);
        long costsEnd;
        RunLog.Runs deliveries;
        long afterId;
        try (AxHarness ax = AxHarness.open(pg, db, s.axConsumers() + 6, target.config(), !target.seeded())) {
            if (!target.seeded()) {
                createTasks(ax, s);
            }
            out.put("setupSeconds", secondsSince(setup));
            afterId = target.seeded() ? pg.scalar(db, FLOOR) : 0;
            w.watch(target.probes().apply(ax));
            firstSlotsAtStart(pg, db, s.tasks(), "UPDATE ax_task SET next_fire_at = " + pg.nextWholeSecond());
            ax.start();
            ax.startConsumers(s.axConsumers(), s.axBatch());
            w.measure(s.warmup(), s.seconds());
            Window.sleep(GRACE_MILLIS);
            // The costs end here, where the other systems stop: what follows only waits for the window's last slots.
            w.afterStop();
            costsEnd = System.currentTimeMillis();
            out.put("windowSlotsLater", windowSlotsLater(pg, db, s.tasks(), w, afterId));
            out.put("consumerErrors", ax.consumerErrors());
            out.put("loopErrors", ax.node.loopErrors());
            ax.stopConsumers();
            deliveries = ax.deliveries();
        }
        // A run starts when a consumer's body gets it, as the anchors' job bodies note their start (the same clock: one
        // machine). Database time for the rest: created_at is when the firing transaction began, started_at the
        // claim's.
        Map<Long, long[]> succeeded = new HashMap<>();
        try (Connection c = pg.connect(db);
                Statement st = c.createStatement();
                ResultSet r = st.executeQuery("SELECT id, task_id, " + pg.epochMillis("scheduled_at") + ", "
                        + pg.epochMillis("created_at") + ", " + pg.epochMillis("started_at") + ", "
                        + pg.epochMillis("finished_at") + " FROM ax_instance WHERE state = 'SUCCESS' AND id > "
                        + afterId)) {
            while (r.next()) {
                succeeded.put(
                        r.getLong(1),
                        new long[] {r.getLong(2), r.getLong(3), r.getLong(4), r.getLong(5), r.getLong(6)});
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
        Histogram fireLag = new Histogram(3_600_000L, 3);
        Histogram claimWait = new Histogram(3_600_000L, 3);
        Histogram claimToBody = new Histogram(3_600_000L, 3);
        Histogram completeLatency = new Histogram(3_600_000L, 3);
        long sinceT0 = 0;
        long notSucceeded = 0;
        RunLog log = new RunLog();
        Set<Long> delivered = new HashSet<>();
        for (int i = 0; i < deliveries.size(); i++) {
            long id = deliveries.task()[i];
            long[] run = succeeded.get(id);
            if (run == null) {
                notSucceeded++; // handed out, yet not SUCCESS: its completion was refused, or it was handed out again
                continue;
            }
            long sched = run[1];
            long created = run[2];
            long claimed = run[3];
            long finished = run[4];
            long body = deliveries.started()[i];
            delivered.add(id);
            log.add(run[0], sched, body);
            if (body >= w.t0Millis && body < costsEnd) {
                sinceT0++;
            }
            if (body >= w.t0Millis && body < w.t1Millis) {
                fireLag.recordValue(Math.clamp(created - sched, 0, 3_600_000L));
                claimWait.recordValue(Math.clamp(claimed - created, 0, 3_600_000L));
                claimToBody.recordValue(Math.clamp(body - claimed, 0, 3_600_000L));
                completeLatency.recordValue(Math.clamp(finished - claimed, 0, 3_600_000L));
            }
        }
        RunLog.Runs runs = log.snapshot();
        out.put("deliveredNotSucceeded", notSucceeded);
        out.put("succeededNotDelivered", succeeded.size() - delivered.size());
        W1Stats.Figures f = W1Stats.evaluate(runs, s.tasks(), w.t0Millis, w.t1Millis, GRACE_MILLIS);
        out.putAll(f.toMap());
        out.put(
                "duplicateFireKeys",
                pg.scalar(
                        db,
                        "SELECT COUNT(*) FROM (SELECT task_id, fire_key FROM ax_instance WHERE id > " + afterId
                                + " GROUP BY task_id, fire_key HAVING COUNT(*) > 1) d"));
        Map<String, Object> breakdown = new LinkedHashMap<>();
        breakdown.put("fireLagP50Ms", fireLag.getTotalCount() == 0 ? -1 : fireLag.getValueAtPercentile(50));
        breakdown.put("fireLagP99Ms", fireLag.getTotalCount() == 0 ? -1 : fireLag.getValueAtPercentile(99));
        breakdown.put("claimWaitP50Ms", claimWait.getTotalCount() == 0 ? -1 : claimWait.getValueAtPercentile(50));
        breakdown.put("claimWaitP99Ms", claimWait.getTotalCount() == 0 ? -1 : claimWait.getValueAtPercentile(99));
        breakdown.put("claimToBodyP99Ms", claimToBody.getTotalCount() == 0 ? -1 : claimToBody.getValueAtPercentile(99));
        breakdown.put(
                "claimToCompleteP99Ms",
                completeLatency.getTotalCount() == 0 ? -1 : completeLatency.getValueAtPercentile(99));
        breakdown.put(
                "note",
                "fire lag = created_at - scheduled_at (firing loop); claim wait = started_at - created_at (READY queue);"
                        + " claim to body = body start - started_at (the claim's transaction, the hand-over)");
        out.put("lagBreakdown", breakdown);
        out.put("statesAtEnd", W1Systems.states(pg, db, afterId));
        out.putAll(w.costs(sinceT0, pg.tableSizes(db, "ax_")));
        out.putAll(w.probeResults());
        return out;
    }

    /** How long AX is given after the window and its grace to start the window's slots still waiting. */
    static final long CATCH_UP_MILLIS = 60_000;

    /**
     * Whether AX ran every slot of the window in the end. "Missed" counts the slots whose run had not started by the
     * window's end and its grace, which with a demand above AX's rate are the last seconds' slots still waiting READY
     * (the queue is worked oldest first). AX keeps running, up to {@link #CATCH_UP_MILLIS}, until each slot of the
     * window has a started run: a slot still without one then is a slot lost, which the unique fire key and the scan
     * window (invariants 1 and 3 of docs/architecture.md) exist to make impossible.
     */
    private static Map<String, Object> windowSlotsLater(BenchDb pg, String db, int tasks, Window w, long afterId) {
        long firstSlot = W1Stats.slotAtOrAfter(w.t0Millis);
        long endSlot = W1Stats.slotAtOrAfter(w.t1Millis);
        long expected = (endSlot - firstSlot) * tasks;
        // One run per (task, slot): the unique (task, fire key) index.
        String started = "SELECT COUNT(*) FROM ax_instance WHERE id > " + afterId
                + " AND started_at IS NOT NULL AND scheduled_at >= " + pg.fromEpochSeconds(firstSlot)
                + " AND scheduled_at < " + pg.fromEpochSeconds(endSlot);
        long waitFrom = System.nanoTime();
        long ran = pg.scalar(db, started);
        while (ran < expected && System.nanoTime() - waitFrom < CATCH_UP_MILLIS * 1_000_000) {
            Window.sleep(1000);
            ran = pg.scalar(db, started);
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("slots", expected);
        m.put("notStarted", expected - ran);
        m.put("secondsAfterWindow", Math.round((GRACE_MILLIS + (System.nanoTime() - waitFrom) / 1e6) / 100) / 10.0);
        return m;
    }
}
