package dev.ax.scheduler;

import dev.ax.domain.run.EventType;
import dev.ax.domain.run.InstanceState;
import dev.ax.store.InstanceRow;
import dev.ax.store.Move;
import dev.ax.store.Store;

/**
 * The small periodic chores of a node, each a tick the loop calls: runs whose lease expired
 * become failures (EXECUTOR_LOST, then the retry policy), and retries whose time has come
 * become READY again.
 */
public final class Housekeeping {
    static final int BATCH = 500;

    private final NodeContext ctx;
    private final Dispatcher dispatcher;

    public Housekeeping(NodeContext ctx, Dispatcher dispatcher) {
        this.ctx = ctx;
        this.dispatcher = dispatcher;
    }

    public void tick() {
        reapLeases();
        promoteRetries();
    }

    public int reapLeases() {
        int total = 0;
        int n;
        do {
            n = dispatcher.reapExpiredLeases(BATCH);
            total += n;
        } while (n == BATCH);
        return total;
    }

    /** RETRYING → READY for every retry that is due; returns how many. */
    public int promoteRetries() {
        Store store = ctx.store();
        int promoted = store.tx(tx -> {
            int n = 0;
            for (InstanceRow run : store.instances().lockDueRetries(tx, BATCH)) {
                if (store.instances().move(tx, Move.of(run.id(), InstanceState.RETRYING, InstanceState.READY)
                        .set(Move.Column.READY_AT, Move.NOW)
                        .event(EventType.RETRY_READY, ctx.schedulerActor(), ctx.nodeId(),
                                "attempt " + (run.attempt() + 1) + " of " + run.maxAttempts() + " is ready"))) {
                    n++;
                }
            }
            return n;
        });
        if (promoted > 0) {
            ctx.signals().workAvailable();
        }
        return promoted;
    }
}
