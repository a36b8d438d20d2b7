package dev.ax.domain.workflow;

import dev.ax.domain.state.StateMachine;

/** The state of a workflow's backfill: RUNNING while it creates workflow runs for its range. */
public enum WorkflowBackfillState {
    RUNNING,
    CANCELED,
    DONE;

    public static final StateMachine<WorkflowBackfillState> MACHINE = StateMachine.of(
                    "workflow backfill", WorkflowBackfillState.class)
            .initial(RUNNING)
            .allow(RUNNING, CANCELED, DONE)
            .build();
}
