package dev.ax.domain.run;

import dev.ax.domain.state.StateMachine;

/** The state of a task's backfill: RUNNING while it creates runs for its range, paused and resumed by hand. */
public enum BackfillState {
    RUNNING,
    PAUSED,
    CANCELED,
    DONE;

    public static final StateMachine<BackfillState> MACHINE = StateMachine.of("backfill", BackfillState.class)
            .initial(RUNNING)
            .allow(RUNNING, PAUSED, CANCELED, DONE)
            .allow(PAUSED, RUNNING, CANCELED)
            .build();
}
