package dev.ax.domain.workflow;

import dev.ax.domain.run.RunState;
import dev.ax.domain.state.StateMachine;

/**
 * The state of one node in one workflow run. A node is PENDING until its trigger rule says run
 * (RUNNING: it has a run) or skip (SKIPPED, with the reason); it is final once its
 * run is.
 */
public enum NodeState {
    PENDING,
    RUNNING,
    SUCCESS,
    FAILED,
    SKIPPED;

    /**
     * A node starts PENDING; its rule runs it (RUNNING, with a run) or skips it, or its run
     * cannot be created (FAILED); a run created already final gives the node its end at once. A
     * running node ends with its run, or is skipped when the run is canceled. A rerun resets a
     * finished node to PENDING.
     */
    public static final StateMachine<NodeState> MACHINE = StateMachine.of("workflow node", NodeState.class)
            .initial(PENDING)
            .allow(PENDING, RUNNING, SKIPPED, FAILED)
            .allow(RUNNING, SUCCESS, FAILED, SKIPPED)
            .allow(SUCCESS, PENDING)
            .allow(FAILED, PENDING)
            .allow(SKIPPED, PENDING)
            .build();

    public boolean isFinal() {
        return this == SUCCESS || this == FAILED || this == SKIPPED;
    }

    /**
     * The node state that a run state stands for. A terminated or canceled run is a
     * failure of its node (the work was not done); a run the concurrency gate or an
     * idempotency key skipped makes the node SKIPPED.
     */
    public static NodeState of(RunState instance) {
        return switch (instance) {
            case SUCCESS -> SUCCESS;
            case FAILED, TERMINATED, CANCELED -> FAILED;
            case SKIPPED -> SKIPPED;
            default -> RUNNING;
        };
    }
}
