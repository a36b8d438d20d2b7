package dev.ax.domain.workflow;

import dev.ax.domain.run.InstanceState;

/**
 * The state of one node in one workflow run. A node is PENDING until its trigger rule says run
 * (RUNNING: it has an instance) or skip (SKIPPED, with the reason); it is final once its
 * instance is.
 */
public enum NodeState {
    PENDING,
    RUNNING,
    SUCCESS,
    FAILED,
    SKIPPED;

    public boolean isFinal() {
        return this == SUCCESS || this == FAILED || this == SKIPPED;
    }

    /**
     * The node state that an instance state stands for. A terminated or canceled instance is a
     * failure of its node (the work was not done); an instance the concurrency gate or an
     * idempotency key skipped makes the node SKIPPED.
     */
    public static NodeState of(InstanceState instance) {
        return switch (instance) {
            case SUCCESS -> SUCCESS;
            case FAILED, TERMINATED, CANCELED -> FAILED;
            case SKIPPED -> SKIPPED;
            default -> RUNNING;
        };
    }
}
