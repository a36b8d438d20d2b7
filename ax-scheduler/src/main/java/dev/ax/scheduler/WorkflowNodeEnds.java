package dev.ax.scheduler;

import dev.ax.domain.run.Cause;
import dev.ax.domain.run.RunState;
import dev.ax.domain.workflow.NodeState;
import dev.ax.store.RunRow;
import dev.ax.store.Tx;

/**
 * The one hook every path that ends a run calls, in the transaction that ends it: when the
 * run is a workflow node's current one, the node takes the matching final state and is
 * flagged for the workflow loop, which starts or skips the nodes below it right after the commit
 * (in a separate transaction, so ending a run never takes a second task's lock).
 * For any other run it is one indexed update that changes nothing, or, where the caller
 * has the run row, nothing at all ({@link #onRunEnded}).
 */
public final class WorkflowNodeEnds {
    private WorkflowNodeEnds() {}

    /**
     * As {@link #onRunEnded}, for a caller holding the run: only the workflow engine creates
     * a node's runs (cause WORKFLOW), so a run of any other cause costs no statement — the
     * completion of every scheduled run passes here.
     */
    public static void onRunEnded(NodeContext ctx, Tx tx, RunRow run, RunState state) {
        if (run.cause() == Cause.WORKFLOW) {
            onRunEnded(ctx, tx, run.id(), state);
        }
    }

    public static void onRunEnded(NodeContext ctx, Tx tx, long instanceId, RunState state) {
        if (ctx.store().workflowRuns().instanceEnded(tx, instanceId, NodeState.of(state), null) > 0) {
            ctx.signals().workflowsChanged();
        }
    }
}
