package dev.ax.alerts;

import dev.ax.domain.task.RunRetention;
import dev.ax.scheduler.HistoryRetention;
import dev.ax.scheduler.LoopRunner;
import dev.ax.scheduler.Retention;
import dev.ax.scheduler.SchedulerNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The alerting and self-monitoring side of one server node: the event tail, the delivery loop,
 * the watchdog, anomaly detection, run-log upkeep, and what /healthz and /metrics show. Nothing
 * here is on the scheduling path: these loops read what the scheduler recorded and may fail or lag
 * without holding up a single run. Start-up does no network I/O, so a broken channel cannot
 * stop a node from starting.
 */
public final class Alerts implements AutoCloseable {
    private final AlertsContext ctx;
    private final EventTail tail;
    private final Deliveries deliveries;
    private final Watchdog watchdog;
    private final Anomalies anomalies;
    private final RunLogUpkeep runLogs;
    private final List<LoopRunner> loops = new ArrayList<>();

    private Alerts(AlertsContext ctx) {
        this.ctx = ctx;
        this.tail = new EventTail(ctx);
        this.deliveries = new Deliveries(ctx);
        this.watchdog = new Watchdog(ctx, deliveries);
        this.anomalies = new Anomalies(ctx);
        this.runLogs = new RunLogUpkeep(ctx);
    }

    /** The parts, without their loops: tests call the ticks themselves. */
    public static Alerts create(SchedulerNode node, AlertsConfig config) {
        AxMetrics metrics = new AxMetrics();
        metrics.bindPool(node.context().store().db());
        metrics.bindRetention(node.retention());
        node.context().store().tallyTo(new RunTallies(metrics));
        Channels channels = new Channels(config.channels(), node.context().clock());
        return new Alerts(new AlertsContext(
                node,
                config,
                channels,
                metrics,
                new Outbox(node.context().store().alerts()),
                new RunAlerts(node.context().store(), config.consoleUrl())));
    }

    /** Creates the parts and starts their loops. */
    public static Alerts start(SchedulerNode node, AlertsConfig config) {
        Alerts alerts = create(node, config);
        try {
            return alerts.startLoops();
        } catch (RuntimeException e) {
            alerts.close();
            throw e;
        }
    }

    public synchronized Alerts startLoops() {
        if (!loops.isEmpty()) {
            return this;
        }
        String node = ctx.nodeId();
        AlertsConfig c = ctx.config();
        loops.add(loop("alert-tail-" + node, tail::tick, c.pipeline().tailInterval()));
        loops.add(loop("alert-delivery-" + node, deliveries::tick, c.pipeline().deliveryInterval()));
        loops.add(loop("watchdog-" + node, watchdog::tick, c.watch().interval()));
        loops.add(loop("anomalies-" + node, anomalies::tick, c.anomaly().interval()));
        loops.add(loop("run-logs-" + node, runLogs::tick, c.logs().upkeepInterval()));
        return this;
    }

    private static LoopRunner loop(String name, LoopRunner.Tick tick, Duration every) {
        return new LoopRunner(name, tick, () -> Thread.sleep(every.toMillis())).start();
    }

    // ---- one round of each part (the loops call these; tests call them directly) -------------

    /** Turns new events into outbox rows; returns how many events were read. */
    public int tailTick() {
        return tail.tick();
    }

    /** Sends due alerts; returns how many were delivered. */
    public int deliverTick() {
        return deliveries.tick();
    }

    /** Runs the watchdog's checks; returns the failing ones by name with their reasons. */
    public Map<String, String> watchdogTick() {
        Map<String, String> out = new LinkedHashMap<>();
        watchdog.tick().forEach((c, d) -> out.put(c.wireName, d.toString()));
        return out;
    }

    /** Looks for duplicate, missed and unusually long runs; returns how many alert rows were written. */
    public int anomalyTick() {
        return anomalies.tick();
    }

    /** The runs the last anomaly round read to audit slots, all tasks together. */
    long anomalyRunsReadLastRound() {
        return anomalies.runsReadLastRound();
    }

    /** Applies the per-run log cap; returns the runs cut. */
    public int runLogTick() {
        return runLogs.tick();
    }

    // ---- what the API shows -----------------------------------------------------------------------

    /**
     * This node's health as /healthz shows it.
     *
     * @param status  {@code ok}; {@code degraded} when a channel's last delivery failed (alerts are late) or the
     *                node's clock is off (scheduling is fine: still HTTP 200); {@code unhealthy} when a check fails (503)
     * @param facts   backlog, running, executors, last run created, loop age...
     * @param failing the failing checks by name, with the reason
     * @param degraded the checks that degrade the node without making it unhealthy (its clock), with the reason
     */
    public record Health(
            String status,
            Map<String, Object> facts,
            Map<String, String> failing,
            Map<String, String> degraded,
            Map<String, Object> channels) {
        public boolean healthy() {
            return failing.isEmpty();
        }
    }

    /** The periods in force and what this node's retention deleted since it started (/healthz's {@code retention}). */
    private Map<String, Object> retention() {
        HistoryRetention periods = ctx.node().context().config().retention();
        Retention.Totals deleted = ctx.node().retention().totals();
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("runs", RunRetention.format(periods.runs()));
        r.put("logs", RunRetention.format(periods.logs()));
        r.put("deletedRuns", deleted.runs());
        r.put("deletedLogChunks", deleted.logChunks());
        r.put("deletedWorkflowRuns", deleted.workflowRuns());
        r.put("deletedTaskEvents", deleted.taskEvents());
        return r;
    }

    public Health health() {
        Map<String, String> failing = new LinkedHashMap<>();
        Map<String, String> degraded = new LinkedHashMap<>();
        Map<String, Object> facts = new LinkedHashMap<>();
        Map<String, Long> pending = Map.of();
        try {
            WatchFacts f = watchdog.facts();
            facts.putAll(f.toMap());
            WatchChecks.failing(f, ctx.config().watch())
                    .forEach((c, d) -> (c.degradesOnly ? degraded : failing).put(c.wireName, d.toString()));
            pending = ctx.store().tx(tx -> ctx.store().alerts().pendingByChannel(tx));
        } catch (RuntimeException e) {
            failing.put(WatchChecks.Check.DATABASE.wireName, "the database cannot be reached: " + e.getMessage());
        }
        Duration watchdogAge = watchdog.sinceLastRun();
        if (!loops.isEmpty()
                && watchdogAge.compareTo(
                                ctx.config().watch().interval().multipliedBy(3).plusSeconds(10))
                        > 0) {
            failing.put("watchdog", "the watchdog has not run for " + RunAlerts.human(watchdogAge));
        }
        facts.put("retention", retention());
        facts.put("alertLoopErrors", loopErrors());
        String status = !failing.isEmpty()
                ? "unhealthy"
                : !degraded.isEmpty() || ctx.channels().anyFailing() ? "degraded" : "ok";
        return new Health(status, facts, failing, degraded, ctx.channels().health(pending));
    }

    /** The Prometheus text exposition of this node's metrics; the gauges are read fresh. */
    public String scrape() {
        try {
            WatchFacts f = watchdog.facts();
            ctx.metrics().update(f, WatchChecks.failing(f, ctx.config().watch()).size());
        } catch (RuntimeException e) {
            // The gauges keep their last values; the database being down shows on /healthz.
            ctx.metrics().update(null, 1);
        }
        return ctx.metrics().scrape();
    }

    public Set<String> channelNames() {
        return ctx.config().channels().keySet();
    }

    /** Errors of the alert loops since start; healthy nodes keep this at zero. */
    public long loopErrors() {
        return loops.stream().mapToLong(LoopRunner::errors).sum();
    }

    /** The newest alerts (any channel, any state), newest first: for tests and diagnostics. */
    public List<AlertView> recent(int limit) {
        return ctx.store().tx(tx -> ctx.outbox().recent(tx, limit)).stream()
                .map(r -> new AlertView(
                        r.id(),
                        r.channel(),
                        r.kind().name(),
                        r.state().name(),
                        r.dedupeKey(),
                        r.content().masked(ctx.mask()).title(),
                        AlertText.plain(r.content().masked(ctx.mask())),
                        r.attempts(),
                        r.lastError(),
                        r.instanceId()))
                .toList();
    }

    /** One outbox row as tests and diagnostics see it; never a channel secret. */
    public record AlertView(
            long id,
            String channel,
            String kind,
            String state,
            String dedupeKey,
            String title,
            String text,
            int attempts,
            String lastError,
            Long instanceId) {}

    @Override
    public synchronized void close() {
        loops.forEach(LoopRunner::close);
        loops.clear();
        ctx.metrics().close();
    }
}
