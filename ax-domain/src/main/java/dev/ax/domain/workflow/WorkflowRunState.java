package dev.ax.domain.workflow;

import dev.ax.domain.state.StateMachine;

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

    /** A run is started RUNNING; it ends once, and a rerun opens a finished run again. */
    public static final StateMachine<WorkflowRunState> MACHINE = StateMachine.of("workflow run", WorkflowRunState.class)
            .initial(RUNNING)
            .allow(RUNNING, SUCCESS, FAILED, CANCELED)
            .allow(SUCCESS, RUNNING)
            .allow(FAILED, RUNNING)
            .allow(CANCELED, RUNNING)
            .build();

    public boolean isFinished() {
        return this != RUNNING;
    }
}
