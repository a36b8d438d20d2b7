package dev.ax.alerts;

import dev.ax.domain.run.EventType;
import dev.ax.store.Store;
import dev.ax.store.Tx;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps run output (ax_log) from filling the database the scheduler needs: a per-run size cap
 * ({@link LogCap}, recorded as LOG_TRUNCATED) and retention (output of runs finished more than
 * {@code logs.runRetentionDays} ago is deleted, and so are alerts and anomaly marks of that age).
 * Periodic and idempotent; any node may run it.
 *
 * <p>The cap is applied after the fact, to runs that wrote output since the last round, so a run
 * can exceed it by what it writes in one {@code logs.upkeepInterval}. Sizes are
 * {@code OCTET_LENGTH} of the stored text.
 */
final class RunLogUpkeep {
    private static final Logger LOG = LoggerFactory.getLogger(RunLogUpkeep.class);
    /** At the first round, the newest chunks this node looks at (not the whole table). */
    static final long FIRST_LOOK = 10_000;

    static final int DELETE_BATCH = 5_000;
    static final int MAX_BATCHES = 20;

    private final AlertsContext ctx;
    private long seenLogId = -1;

    RunLogUpkeep(AlertsContext ctx) {
        this.ctx = ctx;
    }

    record Result(int truncatedRuns, long deletedChunks) {}

    Result tick() {
        return new Result(cap(), retention());
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

    /** Deletes the output of runs finished before the retention period; returns how many chunks. */
    long retention() {
        Store store = ctx.store();
        Duration keep = Duration.ofDays(ctx.config().logs().runRetentionDays());
        long total = 0;
        for (int i = 0; i < MAX_BATCHES; i++) {
            int n = store.tx(
                    tx -> store.logs().deleteOfRunsFinishedBefore(tx, tx.now().minus(keep), DELETE_BATCH));
            total += n;
            if (n < DELETE_BATCH) {
                break;
            }
        }
        if (total > 0) {
            LOG.info(
                    "run log retention: deleted {} chunks of runs finished more than {} days ago",
                    total,
                    keep.toDays());
        }
        // The alerting side's own rows go after the same period: sent or given-up alerts, and
        // anomalies far outside any detection window. Pending alerts stay whatever their age.
        store.tx(tx -> store.alerts().deleteOlderThan(tx, tx.now().minus(keep)));
        return total;
    }
}
