package dev.ax.domain.workflow;

/**
 * The state of a workflow run. RUNNING until every node is final; then SUCCESS when no node
 * FAILED (skipped nodes do not fail a run: a node is skipped only by a rule, and a skip caused by
 * an upstream failure comes with that failure), FAILED otherwise. A rerun makes a finished run
 * RUNNING again.
 */
public enum WorkflowRunState {
    RUNNING,
    SUCCESS,
    FAILED,
    CANCELED;

    public boolean isFinished() {
        return this != RUNNING;
    }
}
