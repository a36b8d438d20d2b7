package dev.ax.store;

import dev.ax.domain.protocol.RunRef;
import dev.ax.domain.run.EventType;
import dev.ax.domain.run.RunState;
import dev.ax.domain.run.Transitions;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * The writes of many runs at once: new runs of a firing batch, successes and "started" reports
 * committed in a group. Each does exactly what its one-run form in {@link RunStore} does
 * (the same columns, the same fence, the same event), in one statement per chunk on PostgreSQL
 * and in a few elsewhere ({@link ReturnlessBatches}); a run its one-run form would leave alone (a
 * taken slot, a lost race, an attempt no longer held) is left out the same way.
 */
public final class RunBatches {
    private final EventStore events;
    private final ReturnlessBatches elsewhere;

    RunBatches(RunStore instances, EventStore events) {
        this.events = events;
        this.elsewhere = new ReturnlessBatches(instances, events);
    }

    /** Runs per statement in {@link #createAll}: one statement's work (and its locks) stay bounded whatever the batch. */
    static final int CREATE_CHUNK = 1000;

    /**
     * {@link RunStore#create} for many runs: the id of each run created, aligned with {@code runs}; empty where
     * the (task, fire key) slot already had a run, or an earlier entry of {@code runs} took it.
     * The same rows and CREATED events as {@code create} writes one by one, in one statement per
     * {@link #CREATE_CHUNK} runs on PostgreSQL (elsewhere an INSERT per chunk and a read of it): a
     * firing batch of 200 tasks due every second spent more of its time in one round trip per run
     * than in anything but commits.
     */
    public List<Optional<Long>> createAll(Tx tx, List<NewRun> runs) {
        List<Optional<Long>> ids = new ArrayList<>(Collections.nCopies(runs.size(), Optional.<Long>empty()));
        // The first entry for a slot is the one that may create it, as with create called in order.
        Map<Slot, Integer> firstOfSlot = new LinkedHashMap<>();
        for (int i = 0; i < runs.size(); i++) {
            NewRun n = runs.get(i);
            if (!Transitions.isInitial(n.state())) {
                throw new IllegalArgumentException("a run cannot start in " + n.state());
            }
            firstOfSlot.putIfAbsent(new Slot(n.taskId(), n.fireKey()), i);
        }
        if (!tx.dialect().writesInWith()) {
            return elsewhere.createAll(tx, runs, firstOfSlot);
        }
        List<Integer> order = new ArrayList<>(firstOfSlot.values());
        for (int from = 0; from < order.size(); from += CREATE_CHUNK) {
            List<Integer> chunk = order.subList(from, Math.min(order.size(), from + CREATE_CHUNK));
            createChunk(tx, runs, chunk, firstOfSlot).forEach((at, id) -> ids.set(at, Optional.of(id)));
        }
        return ids;
    }

    record Slot(long taskId, String fireKey) {}

    /**
     * One statement: the runs at {@code chunk} (distinct slots), and a CREATED event for each run
     * inserted, with that run's own message and data (joined back by slot: RETURNING cannot name
     * the source row it came from). A taken slot inserts neither. Returns position to new id.
     * One array per column (unnest, in the chunk's order): the statement's text is the same
     * whatever the chunk's size, so the server parses and plans it once per connection.
     */
    private Map<Integer, Long> createChunk(
            Tx tx, List<NewRun> runs, List<Integer> chunk, Map<Slot, Integer> firstOfSlot) {
        List<NewRun> rows = chunk.stream().map(runs::get).toList();
        String sql = "WITH v AS (SELECT * FROM unnest(CAST(? AS BIGINT[]), CAST(? AS VARCHAR[]), CAST(? AS INTEGER[]),"
                + " CAST(? AS VARCHAR[]), CAST(? AS VARCHAR[]), CAST(CAST(? AS VARCHAR[]) AS TIMESTAMPTZ[]), CAST(? AS TEXT[]),"
                + " CAST(? AS VARCHAR[]), CAST(? AS INTEGER[]), CAST(? AS VARCHAR[]), CAST(? AS VARCHAR[]), CAST(? AS VARCHAR[]),"
                + " CAST(? AS BIGINT[]), CAST(? AS BIGINT[]), CAST(CAST(? AS VARCHAR[]) AS DATE[]), CAST(? AS BOOLEAN[]),"
                + " CAST(? AS TEXT[]), CAST(? AS TEXT[])) WITH ORDINALITY AS u (task_id, task_name, task_version, cause, fire_key,"
                + " scheduled_at, params, state, max_attempts, executor_group, actor, node_id, parent_id, root_id, business_date,"
                + " finished, message, data, ord)),"
                + " created AS (INSERT INTO ax_instance (task_id, task_name, task_version, cause, fire_key, scheduled_at, params,"
                + " state, attempt, max_attempts, executor_group, ready_at, actor, node_id, parent_id, root_id, business_date, created_at,"
                + " updated_at, finished_at) SELECT task_id, task_name, task_version, cause, fire_key, scheduled_at, params, state, 0,"
                + " max_attempts, executor_group, scheduled_at, actor, node_id, parent_id, root_id, business_date, CURRENT_TIMESTAMP,"
                + " CURRENT_TIMESTAMP, CASE WHEN finished THEN CURRENT_TIMESTAMP END FROM v ORDER BY ord"
                + tx.dialect().onSlotConflictDoNothing()
                + " RETURNING id, task_id, task_name, attempt, fire_key, state, actor, node_id, created_at),"
                + " logged AS ("
                + EventStore.insertEachFrom("(SELECT c.id, c.task_id, c.task_name, CAST(? AS TEXT) AS type,"
                        + " CAST(NULL AS TEXT) AS from_state, c.state AS to_state, c.attempt, c.actor, c.node_id, v.message, v.data"
                        + " FROM created c JOIN v ON v.task_id = c.task_id AND v.fire_key = c.fire_key WHERE NOT ("
                        + RoutineEvents.routineCreateSql("v") + ")) e ORDER BY e.id")
                + " RETURNING instance_id)"
                + " SELECT c.id, c.task_id, c.fire_key, c.created_at, (SELECT COUNT(*) FROM logged) AS events FROM created c";
        long[] logged = {0};
        Map<Integer, Long> created = new HashMap<>();
        tx.query(
                sql,
                r -> {
                    Integer at = firstOfSlot.get(new Slot(r.lng("task_id"), r.str("fire_key")));
                    if (at == null || created.put(at, r.lng("id")) != null) {
                        throw new StoreException("creating " + chunk.size() + " runs returned an unexpected one: task "
                                + r.lng("task_id") + " slot " + r.str("fire_key"));
                    }
                    logged[0] = r.lng("events");
                    NewRun n = runs.get(at);
                    Instant createdAt = r.instant("created_at");
                    events.tell(tx, t -> t.created(n.cause(), n.scheduledAt(), createdAt));
                    return null;
                },
                longs(rows, NewRun::taskId),
                strings(rows, NewRun::taskName),
                ints(rows, NewRun::taskVersion),
                strings(rows, r -> r.cause().name()),
                strings(rows, NewRun::fireKey),
                strings(rows, r -> r.scheduledAt().toString()),
                strings(rows, r -> r.params().isEmpty() ? null : Json.write(r.params())),
                strings(rows, r -> r.state().name()),
                ints(rows, NewRun::maxAttempts),
                strings(rows, NewRun::group),
                strings(rows, NewRun::actor),
                strings(rows, NewRun::nodeId),
                longs(rows, NewRun::parentId),
                longs(rows, NewRun::rootId),
                strings(
                        rows,
                        r -> r.businessDate() == null ? null : r.businessDate().toString()),
                rows.stream().map(r -> r.state().isTerminal()).toArray(Boolean[]::new),
                strings(rows, NewRun::message),
                strings(rows, r -> EventStore.dataJson(Map.of("cause", r.cause().wireName(), "fireKey", r.fireKey()))),
                EventType.CREATED);
        long eventful = created.keySet().stream()
                .filter(at -> !RoutineEvents.routineCreate(runs.get(at)))
                .count();
        if (!created.isEmpty() && logged[0] != eventful) {
            throw new StoreException(
                    "created " + eventful + " runs that are not routine but " + logged[0] + " CREATED events");
        }
        return created;
    }

    /**
     * One RUNNING → SUCCESS move as an executor reported it: fenced by the attempt and executor
     * like {@link Move#fence}. {@code recorded}: the success is written as a SUCCEEDED event (a
     * task's alerts watch it); otherwise it is a routine step the run's columns hold.
     */
    public record Success(
            long instanceId, int attempt, String executorId, Integer exitCode, String message, boolean recorded) {}

    /**
     * Applies many {@link Success}es, each exactly as {@link RunStore#move} would (same columns, same
     * fence, same event) and returns the ids that moved; a run no longer where its report says
     * (lost a race) is left out, as {@code move} would return false for it. On PostgreSQL every
     * move and its event in one statement, in id order; elsewhere a JDBC batch of {@code move}'s
     * statement, in id order, and one of the events.
     */
    public Set<Long> succeedAll(Tx tx, List<Success> runs, String nodeId) {
        Transitions.check(RunState.RUNNING, RunState.SUCCESS);
        Set<Long> moved = new HashSet<>();
        List<Success> sorted = runs.stream()
                .sorted(Comparator.comparingLong(Success::instanceId))
                .toList();
        if (!tx.dialect().writesInWith()) {
            return elsewhere.succeedAll(tx, sorted, nodeId);
        }
        // One array per column (unnest): the statement's text is the same whatever the group's size, so the
        // server parses and plans it once per connection instead of once per group.
        // The columns Move.finished() and the success move set, in the same order; the fence in the WHERE. The state a
        // run must be in is a column of v (RUNNING in every row), not a constant: "i.state = 'RUNNING'" matched the
        // partial index of RUNNING runs, and the planner read all of them (and their dead entries) and hashed them
        // against the group instead of fetching the group's runs by id.
        moved.addAll(tx.query(
                "WITH v (id, attempt, executor_id, exit_code, message, recorded, from_state) AS"
                        + " (SELECT * FROM unnest(CAST(? AS BIGINT[]), CAST(? AS INTEGER[]), CAST(? AS VARCHAR[]), CAST(? AS INTEGER[]),"
                        + " CAST(? AS VARCHAR[]), CAST(? AS BOOLEAN[]), CAST(? AS VARCHAR[]))"
                        + "), moved AS (UPDATE ax_instance i SET state = 'SUCCESS', updated_at = CURRENT_TIMESTAMP, exit_code = v.exit_code,"
                        + " message = v.message, finished_at = CURRENT_TIMESTAMP, lease_expires_at = NULL, end_node = CAST(? AS VARCHAR)"
                        + " FROM v WHERE i.id = v.id AND i.state = v.from_state AND i.attempt = v.attempt AND i.executor_id = v.executor_id"
                        + " RETURNING i.id, i.task_id, i.task_name, i.attempt, i.executor_id, i.exit_code, i.message, v.recorded),"
                        + " logged AS (INSERT INTO ax_event (instance_id, task_id, task_name, type, from_state, to_state, attempt, actor,"
                        + " node_id, at, message, data) SELECT id, task_id, task_name, 'SUCCEEDED', 'RUNNING', 'SUCCESS', attempt,"
                        + " 'executor:' || executor_id, CAST(? AS VARCHAR), CURRENT_TIMESTAMP,"
                        + " COALESCE(message, 'exit ' || CAST(exit_code AS VARCHAR)), NULL FROM moved WHERE recorded ORDER BY id)"
                        + " SELECT id FROM moved",
                r -> r.lng("id"),
                longs(sorted, Success::instanceId),
                ints(sorted, Success::attempt),
                strings(sorted, Success::executorId),
                ints(sorted, Success::exitCode),
                strings(sorted, Success::message),
                sorted.stream().map(Success::recorded).toArray(Boolean[]::new),
                strings(sorted, x -> RunState.RUNNING.name()),
                nodeId,
                nodeId));
        if (!moved.isEmpty()) {
            int n = moved.size();
            events.tell(tx, t -> t.succeeded(n));
        }
        return moved;
    }

    /** One success as {@link RunStore#move} applies it: what {@link #succeedAll} does for many. */
    static Move move(Success s, String nodeId) {
        Move m = Move.of(s.instanceId(), RunState.RUNNING, RunState.SUCCESS)
                .fence(s.attempt(), s.executorId())
                .set(Move.Column.EXIT_CODE, s.exitCode())
                .set(Move.Column.MESSAGE, s.message())
                .set(Move.Column.END_NODE, nodeId)
                .finished();
        return s.recorded()
                ? m.event(
                        EventType.SUCCEEDED,
                        "executor:" + s.executorId(),
                        nodeId,
                        RoutineEvents.successMessage(s.exitCode(), s.message()))
                : m;
    }

    /** "Started" as an executor reported it: the attempt it holds and the pid of the action's process. */
    public record Start(RunRef run, String executorId, long pid) {}

    /**
     * Many {@link LeaseStore#recordStarted}s, each fenced like it; returns the ids recorded (a
     * report for an attempt no longer held is left out). On PostgreSQL one statement, in id
     * order; elsewhere a JDBC batch of {@code recordStarted}'s statement, in id order.
     */
    public Set<Long> recordStartedAll(Tx tx, List<Start> starts, String nodeId) {
        Set<Long> recorded = new HashSet<>();
        List<Start> sorted = starts.stream()
                .sorted(Comparator.comparingLong(s -> s.run().instanceId()))
                .toList();
        if (!tx.dialect().writesInWith()) {
            return elsewhere.recordStartedAll(tx, sorted, nodeId);
        }
        // One array per column, as in succeedAll: one statement text whatever the group's size.
        recorded.addAll(tx.query(
                "WITH v (id, attempt, executor_id, pid) AS (SELECT * FROM unnest("
                        + "CAST(? AS BIGINT[]), CAST(? AS INTEGER[]), CAST(? AS VARCHAR[]), CAST(? AS BIGINT[])))"
                        + " UPDATE ax_instance i SET pid = v.pid, pid_at = CURRENT_TIMESTAMP, start_node = CAST(? AS VARCHAR),"
                        + " updated_at = CURRENT_TIMESTAMP FROM v"
                        + " WHERE i.id = v.id AND i.attempt = v.attempt AND i.executor_id = v.executor_id AND "
                        + LeaseStore.held("i.")
                        + " RETURNING i.id",
                r -> r.lng("id"),
                longs(sorted, st -> st.run().instanceId()),
                ints(sorted, st -> st.run().attempt()),
                strings(sorted, Start::executorId),
                longs(sorted, Start::pid),
                nodeId));
        return recorded;
    }

    // One column of many rows, as the typed array a CAST(? AS BIGINT[]) (INTEGER[], VARCHAR[]) parameter binds.

    private static <T> Long[] longs(List<T> rows, Function<T, Long> column) {
        return rows.stream().map(column).toArray(Long[]::new);
    }

    private static <T> Integer[] ints(List<T> rows, Function<T, Integer> column) {
        return rows.stream().map(column).toArray(Integer[]::new);
    }

    private static <T> String[] strings(List<T> rows, Function<T, String> column) {
        return rows.stream().map(column).toArray(String[]::new);
    }
}
