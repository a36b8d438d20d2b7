package dev.ax.alerts;

import dev.ax.domain.run.EventType;
import dev.ax.store.Store;
import dev.ax.store.Tx;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * Keeps run output (ax_log) from filling the database the scheduler needs: a per-run size cap
 * ({@link LogCap}, recorded as LOG_TRUNCATED); and deletes sent alerts and anomaly marks older than
 * {@code logs.runRetentionDays}. Output of old runs is deleted by the scheduler's history retention
 * ({@code --retention-logs}). Periodic and idempotent; any node may run it.
 *
 * <p>The cap is applied after the fact, to runs that wrote output since the last round, so a run
 * can exceed it by what it writes in one {@code logs.upkeepInterval}. Sizes are
 * {@code OCTET_LENGTH} of the stored text.
 */
final class RunLogUpkeep {
    /** At the first round, the newest chunks this node looks at (not the whole table). */
    static final long FIRST_LOOK = 10_000;

    private final AlertsContext ctx;
    private long seenLogId = -1;

    RunLogUpkeep(AlertsContext ctx) {
        this.ctx = ctx;
    }

    /** Caps the runs that wrote output since the last round, then deletes old alerts; returns the runs cut. */
    int tick() {
        int cut = cap();
        retention();
        return cut;
    }

    /** Cuts the runs that wrote output since the last round and are over the cap; returns how many. */
    synchronized int cap() {
        Store store = ctx.store();
        long cap = ctx.config().logs().runMaxBytes();
        long max = store.tx(tx -> store.logs().lastChunkId(tx));
        long from = seenLogId >= 0 ? seenLogId : Math.max(0, max - FIRST_LOOK);
        if (max <= from) {
            seenLogId = max;
            return 0;
        }
        List<Long> runs = store.tx(tx -> store.logs().runsWrittenBetween(tx, from, max));
        int cut = 0;
        for (long id : runs) {
            cut += store.tx(tx -> capRun(tx, id, cap)) ? 1 : 0;
        }
        seenLogId = max;
        return cut;
    }

    private boolean capRun(Tx tx, long instanceId, long cap) {
        // Locks the run's row: serialises with another node doing the same run, so the marker and its event are written
        // once.
        List<LogCap.Chunk> chunks = ctx.store().logs().lockAndMeasure(tx, instanceId, LogCap.MARKER_PREFIX).stream()
                .map(c -> new LogCap.Chunk(c.id(), c.bytes(), c.marker()))
                .toList();
        var plan = LogCap.plan(chunks, cap);
        if (plan.isEmpty()) {
            return false;
        }
        ctx.store().logs().delete(tx, plan.get().delete());
        if (plan.get().markerId() != null) {
            ctx.store().logs().rewrite(tx, plan.get().markerId(), LogCap.markerText(cap));
            ctx.store()
                    .events()
                    .appendForRun(
                            tx,
                            instanceId,
                            EventType.LOG_TRUNCATED,
                            null,
                            null,
                            AlertsContext.ACTOR,
                            ctx.nodeId(),
                            "output over the per-run cap of " + cap + " bytes: "
                                    + plan.get().removed() + " bytes from the middle removed",
                            Map.of("capBytes", cap, "removedBytes", plan.get().removed()));
        }
        return true;
    }

    /**
     * Deletes the alerting side's own rows older than {@code logs.runRetentionDays}: sent or given-up alerts, and
     * anomalies far outside any detection window. Pending alerts stay whatever their age. Returns how many went.
     */
    int retention() {
        Store store = ctx.store();
        Duration keep = Duration.ofDays(ctx.config().logs().runRetentionDays());
        return store.tx(tx -> store.alerts().deleteOlderThan(tx, tx.now().minus(keep)));
    }
}
