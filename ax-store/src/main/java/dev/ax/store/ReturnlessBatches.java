package dev.ax.store;

import dev.ax.domain.run.EventType;
import dev.ax.domain.run.RunState;
import dev.ax.domain.run.Transitions;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * {@link RunBatches} where an INSERT or UPDATE returns no rows (MariaDB, MySQL, H2): new runs one multi-row INSERT per
 * chunk, read back by their slots; successes one read that locks the group's rows and checks each one's fence, then one
 * UPDATE of the runs that pass; starts one JDBC batch of the one-run statement (sent at once, each row's count saying
 * whether it applied). A few statements for a whole firing batch or group of reports, where one statement per run took
 * one each.
 *
 * <p>A statement's text depends only on a power of two its rows are rounded up to (a list of ids repeats its last one;
 * chunks of new runs are powers of two): statements are prepared on MariaDB's server once per connection, and a text
 * for every batch size had the server parse a 10,000-parameter INSERT at nearly every firing batch.
 */
final class ReturnlessBatches {
    /** Runs per INSERT at most, a power of two: its parameters stay well inside what a statement takes. */
    static final int CREATE_CHUNK = 512;

    private final RunStore runs;
    private final EventStore events;

    ReturnlessBatches(RunStore runs, EventStore events) {
        this.runs = runs;
        this.events = events;
    }

    /** {@link RunBatches#createAll}: {@code firstOfSlot} maps each slot to the first entry of {@code all} that may take it. */
    List<Optional<Long>> createAll(Tx tx, List<NewRun> all, Map<RunBatches.Slot, Integer> firstOfSlot) {
        List<Optional<Long>> ids = new ArrayList<>(Collections.nCopies(all.size(), Optional.<Long>empty()));
        List<Integer> order = new ArrayList<>(firstOfSlot.values());
        for (int from = 0, size; from < order.size(); from += size) {
            size = Math.min(CREATE_CHUNK, Integer.highestOneBit(order.size() - from));
            List<Integer> chunk = order.subList(from, from + size);
            if (insertChunk(tx, all, chunk)) {
                readBack(tx, all, chunk, ids);
            } else {
                // A slot of the chunk was taken (by another node, or before a crash): one by one, as create does.
                for (int at : chunk) {
                    ids.set(at, runs.create(tx, all.get(at)));
                }
            }
        }
        return ids;
    }

    /** One INSERT of the chunk's runs, as {@link RunStore#create} writes each; false (nothing written) if a slot is taken. */
    private static boolean insertChunk(Tx tx, List<NewRun> all, List<Integer> chunk) {
        StringBuilder sql = new StringBuilder(
                "INSERT INTO ax_instance (task_id, task_name, task_version, cause, fire_key, scheduled_at, params, state,"
                        + " attempt, max_attempts, executor_group, ready_at, actor, node_id, parent_id, root_id, business_date,"
                        + " created_at, updated_at, finished_at) VALUES ");
        List<Object> args = new ArrayList<>();
        for (int i = 0; i < chunk.size(); i++) {
            NewRun n = all.get(chunk.get(i));
            sql.append(i == 0 ? "" : ", ")
                    .append(
                            "(?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?, ?, ?, ?, ?, ?, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP, ")
                    .append(n.state().isTerminal() ? "CURRENT_TIMESTAMP" : "NULL")
                    .append(')');
            args.addAll(List.of(n.taskId(), n.taskName(), n.taskVersion(), n.cause(), n.fireKey(), n.scheduledAt()));
            args.add(n.params().isEmpty() ? null : Json.write(n.params()));
            args.addAll(List.of(n.state(), n.maxAttempts(), n.group(), n.scheduledAt(), n.actor(), n.nodeId()));
            args.add(n.parentId());
            args.add(n.rootId());
            args.add(n.businessDate());
        }
        return tx.updateUnlessDuplicate(sql.toString(), args.toArray()) == chunk.size();
    }

    /** The ids and creation times of the chunk's new runs, by slot; their CREATED events, those that have one. */
    private void readBack(Tx tx, List<NewRun> all, List<Integer> chunk, List<Optional<Long>> ids) {
        Set<Long> tasks = new HashSet<>();
        Set<String> keys = new HashSet<>();
        chunk.forEach(at -> {
            tasks.add(all.get(at).taskId());
            keys.add(all.get(at).fireKey());
        });
        List<Object> taskIds = padded(tasks);
        List<Object> fireKeys = padded(keys);
        List<Object> args = new ArrayList<>(taskIds);
        args.addAll(fireKeys);
        // Every (task, key) pair of the two lists: the slot index reads the chunk's runs, and a pair of another chunk's
        // task and key (an older run) is left out below.
        Map<RunBatches.Slot, Object[]> found = new HashMap<>();
        tx.query(
                "SELECT id, task_id, fire_key, created_at FROM ax_instance WHERE task_id IN (" + marks(taskIds.size())
                        + ") AND fire_key IN (" + marks(fireKeys.size()) + ")",
                r -> found.put(
                        new RunBatches.Slot(r.lng("task_id"), r.str("fire_key")),
                        new Object[] {r.lng("id"), r.instant("created_at")}),
                args.toArray());
        List<EventStore.ForRun> created = new ArrayList<>();
        for (int at : chunk) {
            NewRun n = all.get(at);
            Object[] row = found.get(new RunBatches.Slot(n.taskId(), n.fireKey()));
            if (row == null) {
                throw new StoreException(
                        "run of task " + n.taskId() + " slot " + n.fireKey() + " inserted but not found");
            }
            long id = (Long) row[0];
            Instant createdAt = (Instant) row[1];
            ids.set(at, Optional.of(id));
            events.tell(tx, t -> t.created(n.cause(), n.scheduledAt(), createdAt));
            if (!RoutineEvents.routineCreate(n)) {
                Map<String, Object> data = Map.of("cause", n.cause().wireName(), "fireKey", n.fireKey());
                created.add(new EventStore.ForRun(
                        id, EventType.CREATED, null, n.state(), n.actor(), n.nodeId(), n.message(), data));
            }
        }
        if (!created.isEmpty()) {
            events.appendForRuns(tx, created);
        }
    }

    /** {@link RunBatches#succeedAll}: {@code sorted} in id order. */
    Set<Long> succeedAll(Tx tx, List<RunBatches.Success> sorted, String nodeId) {
        List<Move> moves = sorted.stream().map(s -> RunBatches.move(s, nodeId)).toList();
        Set<Long> moved = applyAll(tx, moves);
        List<EventStore.ForRun> succeeded = moves.stream()
                .filter(m -> m.event != null && moved.contains(m.instanceId))
                .map(m -> new EventStore.ForRun(
                        m.instanceId, m.event, m.from, m.to, m.actor, m.nodeId, m.message, m.data))
                .toList();
        if (!succeeded.isEmpty()) {
            events.appendForRuns(tx, succeeded);
        }
        if (!moved.isEmpty()) {
            int n = moved.size();
            events.tell(tx, t -> t.succeeded(n));
        }
        return moved;
    }

    /**
     * The moves, each as {@link RunStore#move} makes it, as a few statements: one read that locks the runs' rows (in id
     * order, as one-run moves lock them) and finds those each move's fence admits, then one UPDATE per distinct set of
     * values (typically one for a group of successes) of the runs admitted; the ids of the runs moved. One UPDATE per
     * run cost MariaDB's server more for each statement (its planning, its answer packet) than for the row it changed.
     */
    private static Set<Long> applyAll(Tx tx, List<Move> moves) {
        Set<Long> moved = new HashSet<>();
        if (moves.isEmpty()) {
            return moved;
        }
        moves.forEach(m -> Transitions.check(m.from, m.to));
        List<Object> ids = padded(moves.stream().map(m -> (Object) m.instanceId).toList());
        Map<Long, Fence> held = new HashMap<>();
        tx.query(
                "SELECT id, state, attempt, executor_id FROM ax_instance WHERE id IN (" + marks(ids.size())
                        + ") ORDER BY id FOR UPDATE",
                r -> held.put(
                        r.lng("id"),
                        new Fence(r.enumOf(RunState.class, "state"), r.integer("attempt"), r.str("executor_id"))),
                ids.toArray());
        // The admitted moves by what they set (text and values).
        Map<RunStore.Update, List<Long>> bySet = new LinkedHashMap<>();
        for (Move m : moves) {
            Fence f = held.get(m.instanceId);
            if (f == null || !f.admits(m) || moved.contains(m.instanceId)) {
                continue;
            }
            bySet.computeIfAbsent(RunStore.set(tx, m), k -> new ArrayList<>()).add(m.instanceId);
            moved.add(m.instanceId);
        }
        // By id only: the rows are locked and were checked above. With "AND state = ?" MariaDB read the group's runs
        // through the index by state, locking every RUNNING run on the way (those other groups were moving too).
        bySet.forEach((set, runIds) -> {
            List<Object> in = padded(runIds);
            List<Object> args = new ArrayList<>(set.args());
            args.addAll(in);
            int n = tx.update(set.sql() + " WHERE id IN (" + marks(in.size()) + ")", args.toArray());
            if (n != runIds.size()) {
                // The rows are locked and were where the moves say: another count is a bug, and nothing commits.
                throw new StoreException("moving " + runIds.size() + " locked runs changed " + n);
            }
        });
        return moved;
    }

    /** What a move's fence compares, as a locked row holds it. */
    private record Fence(RunState state, int attempt, String executorId) {
        boolean admits(Move m) {
            return state == m.from
                    && (m.fenceAttempt == null || (attempt == m.fenceAttempt && m.fenceExecutor.equals(executorId)));
        }
    }

    /** {@link RunBatches#recordStartedAll}: {@code sorted} in run id order. */
    Set<Long> recordStartedAll(Tx tx, List<RunBatches.Start> sorted, String nodeId) {
        int[] counts = tx.batch(
                LeaseStore.RECORD_STARTED,
                sorted.stream()
                        .map(s -> LeaseStore.recordStartedArgs(s.run(), s.executorId(), s.pid(), nodeId))
                        .toList());
        Set<Long> recorded = new HashSet<>();
        for (int i = 0; i < counts.length; i++) {
            if (counts[i] == 1) {
                recorded.add(sorted.get(i).run().instanceId());
            }
        }
        return recorded;
    }

    private static String marks(int n) {
        return String.join(", ", Collections.nCopies(n, "?"));
    }

    /**
     * {@code values} (not empty) with its last one repeated up to the next power of two: the values of an {@code IN
     * (...)}, whose text is then one of a few whatever the batch.
     */
    static List<Object> padded(Collection<?> values) {
        List<Object> out = new ArrayList<>(values);
        int size = out.size() <= 1 ? 1 : Integer.highestOneBit(out.size() - 1) << 1;
        Object last = out.getLast();
        while (out.size() < size) {
            out.add(last);
        }
        return out;
    }
}
