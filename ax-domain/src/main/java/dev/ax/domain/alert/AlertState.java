package dev.ax.domain.alert;

import dev.ax.domain.state.StateMachine;

/**
 * The state of one alert for one channel in the outbox. PENDING until sent or given up; an alert
 * beyond a channel's storm limit is written COLLAPSED, told in that minute's storm summary instead.
 */
public enum AlertState {
    PENDING,
    SENT,
    FAILED,
    COLLAPSED;

    public static final StateMachine<AlertState> MACHINE = StateMachine.of("alert", AlertState.class)
            .initial(PENDING, COLLAPSED)
            .allow(PENDING, SENT, FAILED)
            .build();
}
