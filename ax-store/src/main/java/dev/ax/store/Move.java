package dev.ax.store;

import dev.ax.domain.run.EventType;
import dev.ax.domain.run.RunState;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One state change of one run, with its event: the only way a run changes state
 * ({@link RunStore#move}). Built fluently:
 * {@code Move.of(id, RUNNING, SUCCESS).fence(attempt, executor).set(EXIT_CODE, 0).finished().event(SUCCEEDED, actor, node, "exit 0")}.
 */
public final class Move {
    /** Columns a move may set; anything else is a programming error. */
    public enum Column {
        ATTEMPT("attempt"),
        READY_AT("ready_at"),
        EXECUTOR_ID("executor_id"),
        LEASE_EXPIRES_AT("lease_expires_at"),
        PID("pid"),
        EXIT_CODE("exit_code"),
        FAILURE_KIND("failure_kind"),
        MESSAGE("message"),
        STARTED_AT("started_at"),
        FINISHED_AT("finished_at"),
        /** The node that took a routine success, which writes no event ({@link RoutineEvents}). */
        END_NODE("end_node");

        final String sql;

        Column(String sql) {
            this.sql = sql;
        }
    }

    /** The database's time, or the database's time plus a delay: never a node's own clock. */
    public record DbTime(long plusMillis) {}

    public static final DbTime NOW = new DbTime(0);

    final long instanceId;
    final RunState from;
    final RunState to;
    Integer fenceAttempt;
    String fenceExecutor;
    final Map<Column, Object> sets = new LinkedHashMap<>();
    EventType event;
    String actor;
    String nodeId;
    String message;
    Map<String, Object> data = Map.of();

    private Move(long instanceId, RunState from, RunState to) {
        this.instanceId = instanceId;
        this.from = from;
        this.to = to;
    }

    public static Move of(long instanceId, RunState from, RunState to) {
        return new Move(instanceId, from, to);
    }

    /** Applies only if the run is still at this attempt and held by this executor (invariant 5). */
    public Move fence(int attempt, String executorId) {
        this.fenceAttempt = attempt;
        this.fenceExecutor = executorId;
        return this;
    }

    public Move set(Column column, Object value) {
        sets.put(column, value);
        return this;
    }

    /** Marks the end of the run: finished_at, and the lease dropped. */
    public Move finished() {
        sets.put(Column.FINISHED_AT, NOW);
        sets.put(Column.LEASE_EXPIRES_AT, null);
        return this;
    }

    public Move event(EventType type, String actor, String nodeId, String message) {
        this.event = type;
        this.actor = actor;
        this.nodeId = nodeId;
        this.message = message;
        return this;
    }

    public Move data(Map<String, Object> data) {
        this.data = data;
        return this;
    }

    public long instanceId() {
        return instanceId;
    }

    public RunState from() {
        return from;
    }

    public RunState to() {
        return to;
    }
}
