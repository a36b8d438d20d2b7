package dev.ax.domain.run;

import java.util.EnumSet;
import java.util.Map;
import java.util.Set;

/**
 * The state of one shard of a sharded instance ({@code policy.sharding}). The instance keeps its
 * own {@link InstanceState} (RUNNING while any shard may still run); shards move through this
 * smaller machine, and only through {@link #check}.
 *
 * <pre>
 * READY ──► RUNNING ──► SUCCESS
 *   ▲          ├──► RETRYING ──► RUNNING   (claimed again once due)
 *   │          ├──► FAILED                  (retries exhausted or not retryable)
 *   │          └──► STOPPED                 (the instance ended: terminated, or another shard failed)
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

    private static final Map<ShardState, Set<ShardState>> ALLOWED = Map.of(
            READY, EnumSet.of(RUNNING, STOPPED),
            RUNNING, EnumSet.of(SUCCESS, RETRYING, FAILED, STOPPED),
            RETRYING, EnumSet.of(RUNNING, STOPPED),
            SUCCESS, EnumSet.noneOf(ShardState.class),
            FAILED, EnumSet.noneOf(ShardState.class),
            STOPPED, EnumSet.noneOf(ShardState.class));

    public boolean isTerminal() {
        return ALLOWED.get(this).isEmpty();
    }

    /** Throws {@link IllegalStateException} for a move the table does not allow. */
    public static void check(ShardState from, ShardState to) {
        if (!ALLOWED.get(from).contains(to)) {
            throw new IllegalStateException("a shard cannot move from " + from + " to " + to);
        }
    }
}
