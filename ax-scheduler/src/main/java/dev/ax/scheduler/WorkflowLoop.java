package dev.ax.scheduler;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * The workflow part of a node: its service, its backfills and its own loop. One {@link #tick}
 * fires due workflows, advances runs whose nodes ended, catches ends no hook reported, and
 * moves workflow backfills on. The loop wakes at once when a node's run ends on this node
 * (or a workflow changes here) and otherwise every {@code housekeeping} interval, or at the
 * next due slot if that is sooner; other nodes' changes are found by those passes.
 */
public final class WorkflowLoop implements AutoCloseable {
    /** After a wake-up: lets the transaction that raised it commit, and gathers a burst of ends into one pass. */
    private static final long SETTLE_MILLIS = 20;

    private final NodeContext ctx;
    private final WorkflowEngine engine;
    private final Workflows service;
    private final WorkflowBackfills backfills;
    private final LoopRunner loop;
    private volatile long seen;

    WorkflowLoop(NodeContext ctx, ConcurrencyGate gate) {
        this.ctx = ctx;
        this.engine = new WorkflowEngine(ctx, gate);
        this.service = new Workflows(ctx, engine);
        this.backfills = new WorkflowBackfills(ctx, engine);
        this.loop = new LoopRunner("workflows-" + ctx.nodeId(), this::loopTick, this::pause);
    }

    void start() {
        loop.start();
    }

    private void loopTick() {
        seen = ctx.signals().workflowsGeneration();
        tick();
    }

    /** One pass; returns how many runs were created or advanced and ends caught. Tests call it directly. */
    public int tick() {
        int n = engine.tick();
        n += backfills.tick();
        return n;
    }

    private void pause() throws InterruptedException {
        Duration wait = ctx.config().housekeeping();
        Optional<Instant> next = engine.nextDue();
        if (next.isPresent()) {
            Duration until = Duration.between(ctx.clock().now(), next.get());
            wait = until.isNegative() ? Duration.ZERO : (until.compareTo(wait) < 0 ? until : wait);
        }
        if (!wait.isZero()) {
            long before = seen;
            ctx.signals().awaitWorkflows(before, wait);
            if (ctx.signals().workflowsGeneration() != before) {
                Thread.sleep(SETTLE_MILLIS);
            }
        }
    }

    public Workflows service() {
        return service;
    }

    public WorkflowBackfills backfills() {
        return backfills;
    }

    /** Workflow runs this node created for a slot, and slots another node (or an earlier pass) had taken already. */
    public long firedCount() {
        return engine.firedCount();
    }

    public long duplicatesPrevented() {
        return engine.duplicatesPrevented();
    }

    public long errors() {
        return loop.errors();
    }

    /** A paused loop fires no workflow and starts no node (a draining node). */
    public void setPaused(boolean paused) {
        loop.setPaused(paused);
    }

    @Override
    public void close() {
        loop.close();
    }
}
