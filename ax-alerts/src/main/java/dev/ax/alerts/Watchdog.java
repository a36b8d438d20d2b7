package dev.ax.alerts;

import dev.ax.alerts.WatchChecks.Check;
import dev.ax.alerts.WatchChecks.Finding;
import dev.ax.store.DatabaseClock;
import dev.ax.store.Store;
import dev.ax.store.Tx;
import java.time.Duration;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The self-watchdog: every {@code watchdog.interval} it reads the facts, judges the checks, and
 * flips each check's shared state; the node whose flip wins raises the alert (once per failure)
 * and later the recovery. The database being unreachable cannot go through the outbox (it is in
 * the database), so that one alert is sent directly, once per outage, from this node's memory.
 */
final class Watchdog {
    private static final Logger LOG = LoggerFactory.getLogger(Watchdog.class);

    private final AlertsContext ctx;
    private final Deliveries deliveries;
    private volatile boolean databaseDownAlerted;
    private volatile long lastRunNanos = System.nanoTime();

    Watchdog(AlertsContext ctx, Deliveries deliveries) {
        this.ctx = ctx;
        this.deliveries = deliveries;
    }

    /** Since this node's firing loop last completed a tick. */
    Duration loopAge() {
        return Duration.ofNanos(System.nanoTime() - ctx.node().firingLoop().lastTickNanos());
    }

    /** Since the watchdog last ran (a stuck watchdog would otherwise report "healthy" forever). */
    Duration sinceLastRun() {
        return Duration.ofNanos(System.nanoTime() - lastRunNanos);
    }

    WatchFacts facts() {
        AlertsConfig.Watch w = ctx.config().watch();
        long alive = ctx.node().context().config().executorAlive().toMillis();
        Duration loopAge = loopAge();
        Duration offset = ctx.node().context().clock() instanceof DatabaseClock clock ? clock.offset() : null;
        return ctx.store()
                .tx(tx -> WatchFacts.collect(ctx.store(), tx, alive, w.noExecutor(), w.silence(), loopAge, offset));
    }

    /** One round of checks; returns the failing ones. */
    Map<Check, Finding> tick() {
        lastRunNanos = System.nanoTime();
        WatchFacts facts;
        try {
            facts = facts();
        } catch (RuntimeException e) {
            Finding detail = Finding.of("watch.database", e.getMessage());
            databaseDown(detail);
            ctx.metrics().update(null, 1);
            return new EnumMap<>(Map.of(Check.DATABASE, detail));
        }
        Map<Check, Finding> failing = WatchChecks.failing(facts, ctx.config().watch());
        Store store = ctx.store();
        store.tx(tx -> {
            if (databaseDownAlerted) {
                // Back: the recovery can go through the outbox again.
                raise(tx, Check.DATABASE, false, Finding.of("watch.database_back"));
            }
            for (Check c : Check.values()) {
                if (c != Check.DATABASE) {
                    raise(tx, c, failing.containsKey(c), failing.get(c));
                }
            }
            return null;
        });
        databaseDownAlerted = false;
        ctx.metrics().update(facts, failing.size());
        return failing;
    }

    private void raise(Tx tx, Check c, boolean failingNow, Finding detail) {
        String key = c.key(ctx.nodeId());
        boolean wasDatabaseOutage = c == Check.DATABASE && databaseDownAlerted;
        // The flip is what makes the alert happen once; the key only has to differ between episodes.
        String english = detail == null ? null : detail.toString();
        if (!ctx.store().alerts().flip(tx, key, failingNow, english, ctx.nodeId()) && !wasDatabaseOutage) {
            return;
        }
        Outbox.Localized content = failingNow ? failing(c, detail) : recovered(c, detail);
        AlertKind kind = failingNow ? AlertKind.WATCHDOG : AlertKind.WATCHDOG_RECOVERED;
        String dedupe =
                (failingNow ? "watch:" : "watch-ok:") + key + ":" + tx.now().toEpochMilli();
        if (failingNow) {
            LOG.warn("watchdog: {} failing: {}", c.wireName, english);
        } else {
            LOG.info("watchdog: {} is healthy again", c.wireName);
        }
        ctx.enqueue(
                tx,
                new Outbox.NewAlert(kind, dedupe, null, null, null, content),
                ctx.config().systemChannels());
    }

    private Outbox.Localized failing(Check c, Finding detail) {
        return w -> {
            Map<String, String> f = new LinkedHashMap<>();
            f.put("Check", c.wireName);
            f.put("Node", ctx.nodeId());
            f.put("Detail", detail.in(w));
            return new AlertContent(
                    AlertKind.WATCHDOG,
                    w.text("watchdog.failing", c.wireName, detail.in(w)),
                    f,
                    List.of(),
                    null,
                    WatchChecks.nextAction(c, ctx.nodeId(), w),
                    null,
                    w.locale());
        };
    }

    private Outbox.Localized recovered(Check c, Finding detail) {
        return w -> {
            Map<String, String> f = new LinkedHashMap<>();
            f.put("Check", c.wireName);
            f.put("Node", ctx.nodeId());
            return new AlertContent(
                    AlertKind.WATCHDOG_RECOVERED,
                    detail == null
                            ? w.text("watchdog.recovered", c.wireName)
                            : w.text("watchdog.recovered_because", c.wireName, detail.in(w)),
                    f,
                    List.of(),
                    null,
                    null,
                    null,
                    w.locale());
        };
    }

    /** Sent straight to the system channels, once per outage: the outbox lives in the unreachable database. */
    private void databaseDown(Finding detail) {
        if (databaseDownAlerted) {
            return;
        }
        databaseDownAlerted = true;
        LOG.error("watchdog: {}", detail);
        Outbox.Localized content = failing(Check.DATABASE, detail);
        for (String channel : ctx.config().systemChannels()) {
            Channel.SendResult r = deliveries.sendNow(channel, "watch:" + Check.DATABASE.key(ctx.nodeId()), content);
            if (!r.ok()) {
                LOG.warn("watchdog: could not tell channel {} that the database is down: {}", channel, r.detail());
            }
        }
    }
}
