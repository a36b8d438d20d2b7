package dev.ax.store;

import dev.ax.domain.run.EventType;
import dev.ax.domain.run.RunState;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Collection;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The append-only event log. Run events are written with their state change, in one transaction. */
public final class EventStore {
    private static final Logger LOG = LoggerFactory.getLogger(EventStore.class);
    private volatile RunTally tally = RunTally.NONE;
    private static final String COLUMNS =
            "id, instance_id, task_id, task_name, type, from_state, to_state, attempt, actor, node_id, at, message, data";

    void tallyTo(RunTally tally) {
        this.tally = tally;
    }

    /** Tells the {@link RunTally} once {@code tx} commits; a tally that throws is logged, the commit stands. */
    void tell(Tx tx, Consumer<RunTally> what) {
        RunTally t = tally;
        if (t != RunTally.NONE) {
            tx.afterCommit(() -> {
                try {
                    what.accept(t);
                } catch (RuntimeException e) {
                    LOG.warn("run tally failed", e);
                }
            });
        }
    }

    /** A task-level event. */
    public void append(Tx tx, NewEvent e) {
        tx.update(
                "INSERT INTO ax_event (instance_id, task_id, task_name, type, actor, node_id, at, message, data)"
                        + " VALUES (NULL, ?, ?, ?, ?, ?, CURRENT_TIMESTAMP, ?, ?)",
                e.taskId(),
                e.taskName(),
                e.type(),
                e.actor(),
                e.nodeId(),
                e.message(),
                dataJson(e.data()));
    }

    /**
     * A run event; task id, name and the current attempt are copied from the run row
     * by the statement itself, so writing an event costs no extra read.
     */
    public void appendForRun(
            Tx tx,
            long instanceId,
            EventType type,
            RunState from,
            RunState to,
            String actor,
            String nodeId,
            String message,
            Map<String, Object> data) {
        int n = tx.update(FOR_RUN, type, from, to, actor, nodeId, message, dataJson(data), instanceId);
        if (n != 1) {
            throw new StoreException("event for a missing run " + instanceId);
        }
    }

    private static final String FOR_RUN =
            "INSERT INTO ax_event (instance_id, task_id, task_name, type, from_state, to_state, attempt, actor, node_id, at, message, data)"
                    + " SELECT id, task_id, task_name, ?, ?, ?, attempt, ?, ?, CURRENT_TIMESTAMP, ?, ? FROM ax_instance WHERE id = ?";

    /** One event of {@link #appendForRuns}: what {@link #appendForRun} takes. */
    record ForRun(
            long instanceId,
            EventType type,
            RunState from,
            RunState to,
            String actor,
            String nodeId,
            String message,
            Map<String, Object> data) {}

    /** {@link #appendForRun} for many runs, in one JDBC batch: one round trip. */
    void appendForRuns(Tx tx, List<ForRun> events) {
        int[] n = tx.batch(
                FOR_RUN,
                events.stream()
                        .map(e -> new Object[] {
                            e.type(),
                            e.from(),
                            e.to(),
                            e.actor(),
                            e.nodeId(),
                            e.message(),
                            dataJson(e.data()),
                            e.instanceId()
                        })
                        .toList());
        for (int i = 0; i < n.length; i++) {
            if (n[i] != 1) {
                throw new StoreException(
                        "event for a missing run " + events.get(i).instanceId());
            }
        }
    }

    /** True if the run has an event of {@code type} for its attempt {@code attempt}. */
    public boolean has(Tx tx, long instanceId, int attempt, EventType type) {
        return tx.queryOne(
                        "SELECT id FROM ax_event WHERE instance_id = ? AND attempt = ? AND type = ? LIMIT 1",
                        r -> r.lng("id"),
                        instanceId,
                        attempt,
                        type)
                .isPresent();
    }

    /**
     * An event about one attempt of a run, which need not be its current one: a report refused for an attempt
     * that is over is recorded with that attempt, not with the one running now.
     */
    public void appendForAttempt(
            Tx tx,
            long instanceId,
            int attempt,
            EventType type,
            String actor,
            String nodeId,
            String message,
            Map<String, Object> data) {
        int n = tx.update(
                "INSERT INTO ax_event (instance_id, task_id, task_name, type, from_state, to_state, attempt, actor, node_id, at, message, data)"
                        + " SELECT id, task_id, task_name, ?, NULL, NULL, ?, ?, ?, CURRENT_TIMESTAMP, ?, ? FROM ax_instance WHERE id = ?",
                type,
                attempt,
                actor,
                nodeId,
                message,
                dataJson(data),
                instanceId);
        if (n != 1) {
            throw new StoreException("event for a missing run " + instanceId);
        }
    }

    /** The columns and values of a run event read from {@code source}, a row set with the run's columns. */
    static String insertFrom(String source) {
        return "INSERT INTO ax_event (instance_id, task_id, task_name, type, from_state, to_state, attempt, actor, node_id, at, message, data)"
                + " SELECT id, task_id, task_name, ?, ?, ?, attempt, ?, ?, CURRENT_TIMESTAMP, ?, ? FROM " + source;
    }

    /**
     * A run event for each row of {@code source}, every column read from it (named as in
     * ax_event): for events that differ per row, such as a batch of runs' CREATED events.
     */
    static String insertEachFrom(String source) {
        return "INSERT INTO ax_event (instance_id, task_id, task_name, type, from_state, to_state, attempt, actor, node_id, at, message, data)"
                + " SELECT id, task_id, task_name, type, from_state, to_state, attempt, actor, node_id, CURRENT_TIMESTAMP, message, data FROM "
                + source;
    }

    /** Every event after {@code afterId}, oldest first: the alert tail's read. */
    public List<EventRow> after(Tx tx, long afterId, int limit) {
        return tx.query(
                "SELECT " + COLUMNS + " FROM ax_event WHERE id > ? ORDER BY id LIMIT ?",
                EventStore::map,
                afterId,
                limit);
    }

    /** The data of a task's events of one type since {@code from}, oldest first. */
    public List<Map<String, Object>> dataOfType(Tx tx, long taskId, EventType type, Instant from) {
        return tx
                .query(
                        "SELECT data FROM ax_event WHERE task_id = ? AND type = '" + type.name()
                                + "' AND at >= ? ORDER BY id",
                        r -> r.str("data"),
                        taskId,
                        from)
                .stream()
                .map(d -> d == null ? Map.<String, Object>of() : Json.readMap(d))
                .toList();
    }

    /**
     * A run's timeline, oldest first: its events after {@code afterId}, and, on the first page
     * ({@code afterId} 0), the routine steps its own columns hold ({@link RoutineEvents}: created,
     * claimed, started, succeeded), which have id 0. A page that is full may leave out a routine
     * step later than its last event; a run has that many events only when something went wrong
     * many times, and those are events.
     */
    public List<EventRow> forRun(Tx tx, long instanceId, long afterId, int limit) {
        List<EventRow> stored = storedForRun(tx, instanceId, afterId, limit);
        if (afterId > 0) {
            return stored;
        }
        return steps(tx, List.of(instanceId)).stream()
                .findFirst()
                .map(s -> RoutineEvents.timeline(stored, s, limit))
                .orElse(stored);
    }

    private List<EventRow> storedForRun(Tx tx, long instanceId, long afterId, int limit) {
        return tx.query(
                "SELECT " + COLUMNS + " FROM ax_event WHERE instance_id = ? AND id > ? ORDER BY id LIMIT ?",
                EventStore::map,
                instanceId,
                afterId,
                limit);
    }

    private static List<RoutineEvents.Steps> steps(Tx tx, Collection<Long> instanceIds) {
        return tx.query(
                "SELECT " + RoutineEvents.COLUMNS + " FROM ax_instance WHERE id IN ("
                        + String.join(", ", Collections.nCopies(instanceIds.size(), "?")) + ")",
                RoutineEvents::steps,
                instanceIds.toArray());
    }

    /**
     * Writes the claim and start of each run's current attempt as events, unless written already:
     * called before a run's next attempt (or a sharded run's fan-out) overwrites the columns that
     * hold them. Runs not yet claimed write nothing. Like every event, the row's {@code at} is when
     * it was written (the alert tail relies on it); when the step happened is in its data,
     * {@link RoutineEvents#STEP_AT}, and a timeline shows that.
     */
    public void keepSteps(Tx tx, Collection<Long> instanceIds) {
        if (instanceIds.isEmpty()) {
            return;
        }
        for (RoutineEvents.Steps s : steps(tx, instanceIds)) {
            List<EventRow> stored = storedForRun(tx, s.run().id(), 0, Integer.MAX_VALUE);
            for (EventRow e : RoutineEvents.attemptSteps(s, stored)) {
                Map<String, Object> data = new java.util.LinkedHashMap<>(e.data());
                data.put(RoutineEvents.STEP_AT, e.at().toString());
                tx.update(
                        "INSERT INTO ax_event (instance_id, task_id, task_name, type, from_state, to_state, attempt, actor,"
                                + " node_id, at, message, data) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, CURRENT_TIMESTAMP, ?, ?)",
                        e.instanceId(),
                        e.taskId(),
                        e.taskName(),
                        e.type(),
                        e.from(),
                        e.to(),
                        e.attempt(),
                        e.actor(),
                        e.nodeId(),
                        e.message(),
                        dataJson(data));
            }
        }
    }

    /** The actor of what the scheduler itself does (its runs' CREATED events among them). */
    public static final String SCHEDULER_ACTOR = "scheduler";

    /**
     * Not one of the routine transitions of a run, as SQL literals: claimed, started, succeeded,
     * and created by the scheduler (a run someone triggered names them). The timeline's index
     * leaves those out (V34), and a query states the condition word for word so that the planner
     * can prove it may use the index.
     */
    static final String NOT_ROUTINE =
            "type NOT IN ('CLAIMED', 'STARTED', 'SUCCEEDED') AND (type <> 'CREATED' OR actor <> '" + SCHEDULER_ACTOR
                    + "')";

    /**
     * A task's timeline, newest first: the task's own events (edits, pauses, missed slots), the
     * runs someone triggered, and what its runs did beyond the routine; each run's own events keep
     * the routine transitions. Indexing those by task would cost every run of every task writes
     * into its task's own page of the index (V32; BENCHMARKS.md has what that cost at 10,000 tasks).
     */
    public List<EventRow> forTask(Tx tx, long taskId, long beforeId, int limit) {
        return tx.query(
                "SELECT " + COLUMNS + " FROM ax_event WHERE task_id = ? AND " + NOT_ROUTINE
                        + " AND id < ? ORDER BY id DESC LIMIT ?",
                EventStore::map,
                taskId,
                beforeId,
                limit);
    }

    public List<EventRow> ofType(Tx tx, long taskId, EventType type) {
        // A literal, as in countByType: the (task_id, type) index leaves the events every run writes out.
        return tx.query(
                "SELECT " + COLUMNS + " FROM ax_event WHERE task_id = ? AND type = '" + type.name() + "' ORDER BY id",
                EventStore::map,
                taskId);
    }

    /** How many events of each type a task has: the per-task counters (overlap-skipped, queue-dropped, …). */
    public Map<EventType, Long> countByType(Tx tx, long taskId, Collection<EventType> types) {
        Map<EventType, Long> counts = new EnumMap<>(EventType.class);
        types.forEach(t -> counts.put(t, 0L));
        if (types.isEmpty()) {
            return counts;
        }
        // Literals (enum names), not parameters: a generic plan could not use the partial (task_id, type) index (V29).
        String in = types.stream().map(Tx::literal).collect(Collectors.joining(", "));
        tx.query(
                "SELECT type, COUNT(*) AS n FROM ax_event WHERE task_id = ? AND type IN (" + in + ") GROUP BY type",
                r -> {
                    counts.put(r.enumOf(EventType.class, "type"), r.lng("n"));
                    return null;
                },
                taskId);
        return counts;
    }

    static String dataJson(Map<String, Object> data) {
        return data == null || data.isEmpty() ? null : Json.write(data);
    }

    private static EventRow map(Tx.Row r) throws SQLException {
        String data = r.str("data");
        return new EventRow(
                r.lng("id"),
                r.nullableLong("instance_id"),
                r.nullableLong("task_id"),
                r.str("task_name"),
                r.enumOf(EventType.class, "type"),
                r.enumOf(RunState.class, "from_state"),
                r.enumOf(RunState.class, "to_state"),
                r.nullableInt("attempt"),
                r.str("actor"),
                r.str("node_id"),
                r.instant("at"),
                r.str("message"),
                data == null ? Map.of() : Json.readMap(data));
    }
}
