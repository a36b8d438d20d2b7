package dev.ax.domain.run;

import dev.ax.domain.state.IllegalTransitionException;
import dev.ax.domain.state.StateMachine;

/**
 * The state of one shard of a sharded run ({@code policy.sharding}). The run keeps its
 * own {@link RunState} (RUNNING while any shard may still run); shards move through this
 * smaller machine ({@link #MACHINE}), and only through {@link #check}.
 *
 * <pre>
 * READY ──► RUNNING ──► SUCCESS
 *   ▲          ├──► RETRYING ──► RUNNING   (claimed again once due)
 *   │          ├──► FAILED                  (retries exhausted or not retryable)
 *   │          └──► STOPPED                 (the run ended: terminated, or another shard failed)
 *   └─ READY / RETRYING ──► STOPPED
 * </pre>
 */
public enum ShardState {
    READY,
    RUNNING,
    RETRYING,
    SUCCESS,
    FAILED,
    STOPPED;

    /** The table of a shard's moves. */
    public static final StateMachine<ShardState> MACHINE = StateMachine.of("shard", ShardState.class)
            .initial(READY)
            .allow(READY, RUNNING, STOPPED)
            .allow(RUNNING, SUCCESS, RETRYING, FAILED, STOPPED)
            .allow(RETRYING, RUNNING, STOPPED)
            .build();

    public boolean isTerminal() {
        return MACHINE.isFinal(this);
    }

    /** Throws {@link IllegalTransitionException} for a move the table does not allow. */
    public static void check(ShardState from, ShardState to) {
        MACHINE.check(from, to);
    }
}
