package dev.ax.store;

import dev.ax.domain.run.EventType;
import dev.ax.domain.run.FailureKind;
import dev.ax.domain.run.ShardState;
import java.util.Map;

/**
 * How a RUNNING shard attempt ends, with its event: the argument of {@link ShardStore#finish}.
 * Built fluently, like {@link Move}:
 * {@code ShardEnd.of(shard, RETRYING).outcome(1, EXIT_CODE, "exited with code 1").retryIn(5000).event(SHARD_RETRY_SCHEDULED, actor, node, text)}.
 * Fenced by the shard's attempt and executor as read in {@code shard}.
 */
public final class ShardEnd {
    final ShardRow shard;
    final ShardState to;
    Integer exitCode;
    FailureKind kind;
    String message;
    long retryInMillis;
    EventType event;
    String actor;
    String nodeId;
    String eventMessage;
    Map<String, Object> data = Map.of();

    private ShardEnd(ShardRow shard, ShardState to) {
        ShardState.check(ShardState.RUNNING, to);
        this.shard = shard;
        this.to = to;
    }

    public static ShardEnd of(ShardRow shard, ShardState to) {
        return new ShardEnd(shard, to);
    }

    public ShardEnd outcome(Integer exitCode, FailureKind kind, String message) {
        this.exitCode = exitCode;
        this.kind = kind;
        this.message = message;
        return this;
    }

    /** For RETRYING: the next attempt is claimable this long after now, by the database's clock. */
    public ShardEnd retryIn(long millis) {
        this.retryInMillis = millis;
        return this;
    }

    public ShardEnd event(EventType type, String actor, String nodeId, String message) {
        this.event = type;
        this.actor = actor;
        this.nodeId = nodeId;
        this.eventMessage = message;
        return this;
    }

    public ShardEnd data(Map<String, Object> data) {
        this.data = data;
        return this;
    }
}
