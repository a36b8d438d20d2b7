package dev.ax.alerts;

import dev.ax.alerts.WatchChecks.Check;
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
    Map<Check, String> tick() {
        lastRunNanos = System.nanoTime();
        WatchFacts facts;
        try {
            facts = facts();
        } catch (RuntimeException e) {
            String detail = "the database cannot be reached: " + e.getMessage();
            databaseDown(detail);
            ctx.metrics().update(null, 1);
            return new EnumMap<>(Map.of(Check.DATABASE, detail));
        }
        Map<Check, String> failing = WatchChecks.failing(facts, ctx.config().watch());
        Store store = ctx.store();
        store.tx(tx -> {
            if (databaseDownAlerted) {
                // Back: the recovery can go through the outbox again.
                raise(tx, Check.DATABASE, false, "the database answers again");
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

    private void raise(Tx tx, Check c, boolean failingNow, String detail) {
        String key = c.key(ctx.nodeId());
        boolean wasDatabaseOutage = c == Check.DATABASE && databaseDownAlerted;
        // The flip is what makes the alert happen once; the key only has to differ between episodes.
        if (!ctx.store().alerts().flip(tx, key, failingNow, detail, ctx.nodeId()) && !wasDatabaseOutage) {
            return;
        }
        AlertContent content = failingNow ? failing(c, detail) : recovered(c, detail);
        String dedupe =
                (failingNow ? "watch:" : "watch-ok:") + key + ":" + tx.now().toEpochMilli();
        if (failingNow) {
            LOG.warn("watchdog: {} failing: {}", c.wireName, detail);
        } else {
            LOG.info("watchdog: {} is healthy again", c.wireName);
        }
        ctx.enqueue(
                tx,
                new Outbox.NewAlert(content.kind(), dedupe, null, null, null, content),
                ctx.config().systemChannels());
    }

    private AlertContent failing(Check c, String detail) {
        Map<String, String> f = new LinkedHashMap<>();
        f.put("Check", c.wireName);
        f.put("Node", ctx.nodeId());
        f.put("Detail", detail);
        return new AlertContent(
                AlertKind.WATCHDOG,
                "AX watchdog: " + c.wireName + " failing — " + detail,
                f,
                List.of(),
                null,
                WatchChecks.nextAction(c, ctx.nodeId()),
                null);
    }

    private AlertContent recovered(Check c, String detail) {
        Map<String, String> f = new LinkedHashMap<>();
        f.put("Check", c.wireName);
        f.put("Node", ctx.nodeId());
        return new AlertContent(
                AlertKind.WATCHDOG_RECOVERED,
                "AX watchdog: " + c.wireName + " is healthy again" + (detail == null ? "" : " — " + detail),
                f,
                List.of(),
                null,
                null,
                null);
    }

    /** Sent straight to the system channels, once per outage: the outbox lives in the unreachable database. */
    private void databaseDown(String detail) {
        if (databaseDownAlerted) {
            return;
        }
        databaseDownAlerted = true;
        LOG.error("watchdog: {}", detail);
        AlertContent content = failing(Check.DATABASE, detail);
        for (String channel : ctx.config().systemChannels()) {
            Channel.SendResult r = deliveries.sendNow(channel, "watch:" + Check.DATABASE.key(ctx.nodeId()), content);
            if (!r.ok()) {
                LOG.warn("watchdog: could not tell channel {} that the database is down: {}", channel, r.detail());
            }
        }
    }
}
