package dev.ax.domain.run;

import dev.ax.domain.state.StateMachine;

/** The state of one failure follow-up ({@code policy.onFailedActions}) of a failed run: carried out once. */
public enum FollowUpState {
    PENDING,
    DONE,
    FAILED;

    public static final StateMachine<FollowUpState> MACHINE = StateMachine.of("follow-up", FollowUpState.class)
            .initial(PENDING)
            .allow(PENDING, DONE, FAILED)
            .build();
}
