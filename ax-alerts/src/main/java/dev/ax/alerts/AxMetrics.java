package dev.ax.alerts;

import dev.ax.domain.run.RunState;
import dev.ax.scheduler.Retention;
import dev.ax.store.Database;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.ToDoubleFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This node's Prometheus metrics. Counters of what happened (fires, outcomes, retries) are fed by
 * the event tail, which reads every event exactly once across the cluster, and, for the routine
 * steps that are no events, by the store as this node commits them ({@link RunTallies}): sum
 * them over nodes.
 * Gauges (queue depth, running, executors, loop age) are the latest {@link WatchFacts} of this node.
 */
final class AxMetrics {
    private static final Logger LOG = LoggerFactory.getLogger(AxMetrics.class);
    /** Fire lag buckets: a healthy node fires within milliseconds; minutes mean it was down or paused. */
    private static final Duration[] LAG_BUCKETS = {
        Duration.ofMillis(5),
        Duration.ofMillis(10),
        Duration.ofMillis(25),
        Duration.ofMillis(50),
        Duration.ofMillis(100),
        Duration.ofMillis(250),
        Duration.ofMillis(500),
        Duration.ofSeconds(1),
        Duration.ofSeconds(2),
        Duration.ofSeconds(5),
        Duration.ofSeconds(10),
        Duration.ofSeconds(30),
        Duration.ofMinutes(1),
        Duration.ofMinutes(5),
        Duration.ofMinutes(15),
        Duration.ofHours(1)
    };

    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final Timer fireLag;
    private final Timer startLag;
    private final AtomicReference<WatchFacts> facts = new AtomicReference<>();
    private final AtomicReference<Integer> failing = new AtomicReference<>(0);

    AxMetrics() {
        new JvmMemoryMetrics().bindTo(registry);
        new JvmGcMetrics().bindTo(registry);
        new JvmThreadMetrics().bindTo(registry);
        new ProcessorMetrics().bindTo(registry);
        new UptimeMetrics().bindTo(registry);
        fireLag = Timer.builder("ax.fire.lag")
                .description("From a slot's scheduled time to its run being created")
                .serviceLevelObjectives(LAG_BUCKETS)
                .register(registry);
        startLag = Timer.builder("ax.start.lag")
                .description("From a slot's scheduled time to its first attempt being claimed")
                .serviceLevelObjectives(LAG_BUCKETS)
                .register(registry);
        for (String state : new String[] {"ready", "running", "retrying", "blocked", "waiting_approval"}) {
            gauge("ax.instances", "Runs by state, now", f -> f.count(state))
                    .tag("state", state)
                    .register(registry);
        }
        gauge(
                        "ax.ready.backlog.age",
                        "Age of the oldest READY run in seconds",
                        f -> f.oldestReadyAge().toMillis() / 1000.0)
                .baseUnit("seconds")
                .register(registry);
        gauge("ax.executors.live", "Executors heard from lately", f -> f.liveExecutors())
                .register(registry);
        gauge(
                        "ax.scheduler.loop.age",
                        "Seconds since this node's firing loop last ticked",
                        f -> f.loopAge().toMillis() / 1000.0)
                .baseUnit("seconds")
                .register(registry);
        gauge(
                        "ax.history.rows",
                        "Rows of history: runs, events, log chunks (estimates on PostgreSQL)",
                        f -> f.history().runs())
                .tag("table", "runs")
                .register(registry);
        gauge(
                        "ax.history.rows",
                        "Rows of history: runs, events, log chunks (estimates on PostgreSQL)",
                        f -> f.history().events())
                .tag("table", "events")
                .register(registry);
        gauge(
                        "ax.history.rows",
                        "Rows of history: runs, events, log chunks (estimates on PostgreSQL)",
                        f -> f.history().logChunks())
                .tag("table", "log_chunks")
                .register(registry);
        gauge(
                        "ax.history.oldest.age",
                        "Age of the oldest run kept, in seconds",
                        f -> f.history().oldestRunAt() == null
                                ? 0
                                : Math.max(
                                        0,
                                        Duration.between(f.history().oldestRunAt(), f.dbTime())
                                                .toSeconds()))
                .baseUnit("seconds")
                .register(registry);
        Gauge.builder("ax.watchdog.failing", failing, f -> f.get())
                .description("Watchdog checks failing on this node")
                .register(registry);
    }

    private Gauge.Builder<AtomicReference<WatchFacts>> gauge(String name, String help, ToDoubleFunction<WatchFacts> f) {
        return Gauge.builder(name, facts, ref -> ref.get() == null ? Double.NaN : f.applyAsDouble(ref.get()))
                .description(help);
    }

    void fired(String cause, Duration lag) {
        Counter.builder("ax.fires")
                .description("Runs created for schedule slots")
                .tag("cause", cause)
                .register(registry)
                .increment();
        fireLag.record(lag.isNegative() ? Duration.ZERO : lag);
    }

    void started(Duration lag) {
        startLag.record(lag.isNegative() ? Duration.ZERO : lag);
    }

    void created(String cause) {
        Counter.builder("ax.runs.created")
                .description("Runs created, by cause")
                .tag("cause", cause)
                .register(registry)
                .increment();
    }

    void finished(RunState outcome) {
        Counter.builder("ax.runs.finished")
                .description("Runs that ended, by final state")
                .tag("outcome", outcome.name().toLowerCase(Locale.ROOT))
                .register(registry)
                .increment();
    }

    void retried() {
        Counter.builder("ax.retries")
                .description("Failed attempts that were retried")
                .register(registry)
                .increment();
    }

    void alertsWritten(AlertKind kind, int rows) {
        Counter.builder("ax.alerts.written")
                .description("Alert rows written to the outbox (one per channel)")
                .tag("kind", kind.name().toLowerCase(Locale.ROOT))
                .register(registry)
                .increment(rows);
    }

    void delivered(String channel, boolean ok) {
        Counter.builder("ax.alert.deliveries")
                .description("Alert delivery attempts by channel and result")
                .tag("channel", channel)
                .tag("result", ok ? "sent" : "failed")
                .register(registry)
                .increment();
    }

    void update(WatchFacts f, int failingChecks) {
        if (f != null) {
            facts.set(f);
        }
        failing.set(failingChecks);
    }

    /** HikariCP's own pool metrics (connections active, idle, pending, timeouts) in the same registry. */
    void bindPool(Database db) {
        if (!db.bindPoolMetrics(registry)) {
            LOG.info("database pool metrics not bound: the pool reports to another registry");
        }
    }

    /** What this node's history retention deleted since it started: {@code ax_retention_deleted_total{what}}. */
    void bindRetention(Retention retention) {
        Map<String, ToDoubleFunction<Retention.Totals>> kinds = new LinkedHashMap<>();
        kinds.put("runs", Retention.Totals::runs);
        kinds.put("log_chunks", Retention.Totals::logChunks);
        kinds.put("workflow_runs", Retention.Totals::workflowRuns);
        kinds.put("task_events", Retention.Totals::taskEvents);
        kinds.forEach((what, f) -> FunctionCounter.builder(
                        "ax.retention.deleted", retention, r -> f.applyAsDouble(r.totals()))
                .description("Rows of expired history this node deleted: runs (with their events), output, workflow"
                        + " runs, a task's own events")
                .tag("what", what)
                .register(registry));
    }

    String scrape() {
        return registry.scrape();
    }

    void close() {
        registry.close();
    }
}
