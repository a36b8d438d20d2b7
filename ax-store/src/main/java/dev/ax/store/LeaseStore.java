package dev.ax.store;

import dev.ax.domain.protocol.RunRef;
import dev.ax.domain.run.RunState;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Leases: which attempt of which run an executor holds, renewed by its heartbeats; the fence of
 * every report about a run (a report names the attempt, and only the executor holding it may
 * speak for it); the runs whose lease ran out, for the reaper; a started attempt's pid.
 */
public final class LeaseStore {
    private final EventStore events;

    public LeaseStore(EventStore events) {
        this.events = events;
    }

    /**
     * What a renewal did: the leases it extended, and the runs the executor no longer holds. A run in neither was busy
     * (locked by another transaction) and keeps the lease it had: the executor must not count it as renewed.
     */
    public record Renewal(List<RunRef> renewed, List<RunRef> lost) {}

    /** Extends the leases that {@code executorId} still holds; returns the ones it no longer holds (see {@link #renew}). */
    public List<RunRef> renewLeases(Tx tx, String executorId, List<RunRef> held, long leaseMillis) {
        return renew(tx, executorId, held, leaseMillis).lost();
    }

    /**
     * Extends the leases that {@code executorId} still holds.
     * A heartbeat never waits for a run's row: on PostgreSQL a run another transaction has locked
     * (its completion being written, typically) is skipped, neither renewed nor lost, and the next
     * heartbeat renews it if it is still held. Waiting, it deadlocked with a group of successes
     * that had locked the same runs in another order; a transaction that never waits cannot be
     * part of a deadlock. One statement for all runs; elsewhere one per run, in id order (H2 has no
     * SKIP LOCKED, and every write of several runs there goes in id order).
     */
    public Renewal renew(Tx tx, String executorId, List<RunRef> held, long leaseMillis) {
        if (held.isEmpty()) {
            return new Renewal(List.of(), List.of());
        }
        List<RunRef> sorted = held.stream()
                .sorted(Comparator.comparingLong(RunRef::instanceId))
                .toList();
        List<RunRef> renewed = new ArrayList<>();
        List<RunRef> lost = new ArrayList<>();
        if (tx.dialect().writesInWith()) {
            // Renewed: updated here. Lost: locked here and failing the fence, or gone. Busy: exists but locked
            // elsewhere.
            tx.query(
                    "WITH v (id, attempt) AS (SELECT * FROM unnest(CAST(? AS BIGINT[]), CAST(? AS INTEGER[]))),"
                            + " free AS (SELECT l.id, l.state, l.attempt, l.executor_id FROM ax_instance l WHERE l.id IN (SELECT id FROM v)"
                            + " FOR NO KEY UPDATE OF l SKIP LOCKED),"
                            + " renewed AS (UPDATE ax_instance i SET lease_expires_at = "
                            + tx.dialect().plusMillis("CURRENT_TIMESTAMP")
                            + " FROM v JOIN free f ON f.id = v.id"
                            + " WHERE i.id = f.id AND f.attempt = v.attempt AND f.executor_id = ? AND " + held("f.")
                            + " RETURNING i.id, i.attempt)"
                            + " SELECT v.id, v.attempt, CASE WHEN EXISTS (SELECT 1 FROM renewed r WHERE r.id = v.id AND r.attempt = v.attempt)"
                            + " THEN 'R' WHEN EXISTS (SELECT 1 FROM free f WHERE f.id = v.id)"
                            + " OR NOT EXISTS (SELECT 1 FROM ax_instance x WHERE x.id = v.id) THEN 'L' ELSE 'B' END AS outcome"
                            + " FROM v ORDER BY v.id",
                    r -> {
                        RunRef ref = new RunRef(r.lng("id"), r.integer("attempt"));
                        switch (r.str("outcome")) {
                            case "R" -> renewed.add(ref);
                            case "L" -> lost.add(ref);
                            default -> {} // busy: neither
                        }
                        return ref;
                    },
                    sorted.stream().map(RunRef::instanceId).toArray(Long[]::new),
                    sorted.stream().map(RunRef::attempt).toArray(Integer[]::new),
                    leaseMillis,
                    executorId);
            return new Renewal(renewed, lost);
        }
        if (tx.dialect().supportsSkipLocked()) {
            return renewSkippingLocked(tx, executorId, sorted, leaseMillis);
        }
        for (RunRef ref : sorted) {
            int n = tx.update(
                    "UPDATE ax_instance SET lease_expires_at = " + tx.dialect().plusMillis("CURRENT_TIMESTAMP")
                            // A run waiting mid-run for approval keeps its process, so its lease too.
                            + " WHERE id = ? AND attempt = ? AND executor_id = ? AND state IN ('RUNNING', 'WAITING_APPROVAL')",
                    leaseMillis,
                    ref.instanceId(),
                    ref.attempt(),
                    executorId);
            (n == 0 ? lost : renewed).add(ref);
        }
        return new Renewal(renewed, lost);
    }

    /**
     * {@link #renew} where SKIP LOCKED cannot be part of an UPDATE (MariaDB): one read locks the held runs'
     * rows, skipping those another transaction holds, one update renews the leases still held. Of the
     * skipped runs, those a plain read still finds are busy, the others gone (lost).
     */
    private static Renewal renewSkippingLocked(Tx tx, String executorId, List<RunRef> sorted, long leaseMillis) {
        Object[] ids = sorted.stream().map(RunRef::instanceId).toArray();
        Map<Long, Boolean> holds = new HashMap<>(); // the free rows: does the executor hold the attempt asked about?
        Map<Long, Integer> asked = sorted.stream().collect(Collectors.toMap(RunRef::instanceId, RunRef::attempt));
        tx.query(
                "SELECT id, attempt, executor_id, state FROM ax_instance WHERE id IN (" + placeholders(ids.length)
                        + ") ORDER BY id" + tx.dialect().forUpdateSkipLocked(),
                r -> holds.put(
                        r.lng("id"),
                        r.integer("attempt") == asked.get(r.lng("id"))
                                && executorId.equals(r.str("executor_id"))
                                && HELD.contains(r.enumOf(RunState.class, "state"))),
                ids);
        Set<Long> busy = new HashSet<>();
        List<Object> skipped =
                Arrays.stream(ids).filter(id -> !holds.containsKey(id)).toList();
        if (!skipped.isEmpty()) {
            busy.addAll(tx.query(
                    "SELECT id FROM ax_instance WHERE id IN (" + placeholders(skipped.size()) + ")",
                    r -> r.lng("id"),
                    skipped.toArray()));
        }
        List<RunRef> renewed = new ArrayList<>();
        List<RunRef> lost = new ArrayList<>();
        for (RunRef ref : sorted) {
            Boolean held = holds.get(ref.instanceId());
            if (Boolean.TRUE.equals(held)) {
                renewed.add(ref);
            } else if (held != null || !busy.contains(ref.instanceId())) {
                lost.add(ref);
            }
        }
        if (!renewed.isEmpty()) {
            List<Object> args = new ArrayList<>();
            args.add(leaseMillis);
            renewed.forEach(ref -> args.add(ref.instanceId()));
            tx.update(
                    "UPDATE ax_instance SET lease_expires_at = " + tx.dialect().plusMillis("CURRENT_TIMESTAMP")
                            + " WHERE id IN (" + placeholders(renewed.size()) + ")",
                    args.toArray());
        }
        return new Renewal(renewed, lost);
    }

    private static String placeholders(int n) {
        return String.join(", ", Collections.nCopies(n, "?"));
    }

    /**
     * RUNNING runs whose lease ran out by the database's clock. Not locked: the reaper fails
     * each with a conditional, fenced move after locking its task (tasks before runs, the
     * one lock order), and a node that loses the race simply changes nothing. Read by plain index
     * scans ({@link Tx#preferPlainIndexScans()}): housekeeping asks at every tick.
     */
    public List<RunRow> expiredLeases(Tx tx, int limit) {
        tx.preferPlainIndexScans();
        return tx.query(EXPIRED_LEASES, RunStore::map, limit);
    }

    static final String EXPIRED_LEASES = "SELECT " + RunStore.COLUMNS + " FROM ax_instance WHERE state = 'RUNNING'"
            + " AND lease_expires_at < CURRENT_TIMESTAMP ORDER BY lease_expires_at LIMIT ?";

    /** The runs the server believes {@code executorId} holds. */
    public List<RunRow> heldBy(Tx tx, String executorId) {
        return tx.query(
                "SELECT " + RunStore.COLUMNS + " FROM ax_instance WHERE executor_id = ? AND state = 'RUNNING'",
                RunStore::map,
                executorId);
    }

    /**
     * The runs an executor still holds: RUNNING, or WAITING_APPROVAL with that executor (the job asked mid-run and keeps
     * running meanwhile). The fence of every report about a running attempt; {@link RunRow#heldBy} in Java.
     * {@code table} prefixes the column ({@code "i."}, or {@code ""}).
     */
    static String held(String table) {
        return table + "state IN ('RUNNING', 'WAITING_APPROVAL')";
    }

    /** The states of {@link #held}. */
    private static final Set<RunState> HELD = EnumSet.of(RunState.RUNNING, RunState.WAITING_APPROVAL);

    /**
     * Records the start of an attempt: its pid, when and on which node. No state change (the run
     * is already RUNNING, or a job that asked for approval before its "started" report arrived
     * waits mid-run, its process still going), and no event: the STARTED event is read from these
     * columns ({@link RoutineEvents}). False when the executor no longer holds the attempt.
     */
    public boolean recordStarted(Tx tx, RunRef ref, String executorId, long pid, String nodeId) {
        return tx.update(RECORD_STARTED, recordStartedArgs(ref, executorId, pid, nodeId)) == 1;
    }

    /** {@link #recordStarted}'s statement; its arguments by {@link #recordStartedArgs}. */
    static final String RECORD_STARTED = "UPDATE ax_instance SET pid = ?, pid_at = CURRENT_TIMESTAMP, start_node = ?,"
            + " updated_at = CURRENT_TIMESTAMP WHERE id = ? AND attempt = ? AND executor_id = ? AND " + held("");

    static Object[] recordStartedArgs(RunRef ref, String executorId, long pid, String nodeId) {
        return new Object[] {pid, nodeId, ref.instanceId(), ref.attempt(), executorId};
    }

    static String startedMessage(String executorId, long pid) {
        return "pid " + pid + " on executor " + executorId;
    }

    static Map<String, Object> startedData(String executorId, long pid) {
        return Map.of("pid", pid, "executor", executorId);
    }

    /** True if {@code executorId} holds the lease of this attempt (the fencing check for reports). */
    public boolean holds(Tx tx, RunRef ref, String executorId) {
        return tx.queryOne(
                        "SELECT 1 AS one FROM ax_instance WHERE id = ? AND attempt = ? AND executor_id = ? AND "
                                + held(""),
                        r -> 1,
                        ref.instanceId(),
                        ref.attempt(),
                        executorId)
                .isPresent();
    }
}
