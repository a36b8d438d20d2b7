package dev.ax.domain.task;

import dev.ax.domain.state.StateMachine;

/** The state of a canary rollout of a task's new version: it ends once, promoted or rolled back. */
public enum CanaryState {
    ACTIVE,
    PROMOTED,
    ROLLED_BACK;

    public static final StateMachine<CanaryState> MACHINE = StateMachine.of("canary rollout", CanaryState.class)
            .initial(ACTIVE)
            .allow(ACTIVE, PROMOTED, ROLLED_BACK)
            .build();
}
