package dev.ax.scheduler;

import dev.ax.domain.run.Cause;
import dev.ax.domain.run.InstanceState;
import dev.ax.domain.workflow.NodeState;
import dev.ax.store.InstanceRow;
import dev.ax.store.Tx;

/**
 * The one hook every path that ends an instance calls, in the transaction that ends it: when the
 * instance is a workflow node's current one, the node takes the matching final state and is
 * flagged for the workflow loop, which starts or skips the nodes below it right after the commit
 * (in a separate transaction, so ending an instance never takes a second task's lock).
 * For any other instance it is one indexed update that changes nothing, or, where the caller
 * has the instance row, nothing at all ({@link #onRunEnded}).
 */
public final class Workflows {
    private Workflows() {}

    /**
     * As {@link #onInstanceEnded}, for a caller holding the run: only the workflow engine creates
     * a node's instances (cause WORKFLOW), so a run of any other cause costs no statement — the
     * completion of every scheduled run passes here.
     */
    public static void onRunEnded(NodeContext ctx, Tx tx, InstanceRow run, InstanceState state) {
        if (run.cause() == Cause.WORKFLOW) {
            onInstanceEnded(ctx, tx, run.id(), state);
        }
    }

    public static void onInstanceEnded(NodeContext ctx, Tx tx, long instanceId, InstanceState state) {
        if (ctx.store().workflowRuns().instanceEnded(tx, instanceId, NodeState.of(state), null) > 0) {
            ctx.signals().workflowsChanged();
        }
    }
}
