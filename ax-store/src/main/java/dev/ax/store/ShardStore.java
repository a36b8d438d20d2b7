package dev.ax.store;

import dev.ax.domain.protocol.RunRef;
import dev.ax.domain.run.EventType;
import dev.ax.domain.run.FailureKind;
import dev.ax.domain.run.ShardState;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Shards of sharded runs ({@code policy.sharding}): the fan-out, claims, leases and the
 * shard state machine ({@link ShardState}). Like runs, every state change is a conditional
 * update whose row count is checked, fenced by (shard attempt, executor) where an executor reports.
 * Events go on the run, with the shard index in their data.
 */
public final class ShardStore {
    static final String COLUMNS =
            "instance_id, shard_index, shard_total, executor_group, state, attempt, ready_at, executor_id,"
                    + " lease_expires_at, pid, exit_code, failure_kind, message, started_at, finished_at";

    private final EventStore events;

    public ShardStore(EventStore events) {
        this.events = events;
    }

    /**
     * Creates shards 0..total-1 of a RUNNING run, READY from {@code notBefore} (the run's slot: a run claimed ahead
     * of it is handed out then, and so are its shards) or now, whichever is later. {@code maxParallel} (the policy's
     * maxParallelShards, null for none) is kept on the rows so that {@link #readyFor} can tell in SQL whether a waiting
     * poll could get a shard.
     */
    public void create(Tx tx, long instanceId, int total, String group, Integer maxParallel, Instant notBefore) {
        for (int i = 0; i < total; i++) {
            tx.update(
                    "INSERT INTO ax_shard (instance_id, shard_index, shard_total, max_parallel, executor_group, state, attempt, ready_at,"
                            + " updated_at) VALUES (?, ?, ?, ?, ?, 'READY', 0, GREATEST(CURRENT_TIMESTAMP, "
                            + tx.dialect().castTimestamp("?") + "), CURRENT_TIMESTAMP)",
                    instanceId,
                    i,
                    total,
                    maxParallel,
                    group,
                    notBefore);
        }
    }

    /**
     * The run's own lease ends when it fans out: from then on the shards hold leases, and the
     * run (RUNNING, no executor) is ended by its shards' outcomes, never by the lease reaper.
     */
    public boolean detachRun(Tx tx, long instanceId, int attempt, String executorId) {
        // The claim and start the run's columns hold name the executor this drops: they become events first.
        events.keepSteps(tx, List.of(instanceId));
        return tx.update(
                        "UPDATE ax_instance SET executor_id = NULL, lease_expires_at = NULL, updated_at = CURRENT_TIMESTAMP"
                                + " WHERE id = ? AND attempt = ? AND executor_id = ? AND state = 'RUNNING'",
                        instanceId,
                        attempt,
                        executorId)
                == 1;
    }

    /** A claimable shard and whether it has waited longer than the spread grace. */
    public record Candidate(ShardRow shard, boolean waitedPastGrace) {}

    /**
     * READY or due RETRYING shards of RUNNING runs in the given groups, oldest first, locked
     * (SKIP LOCKED on PostgreSQL: concurrent claimers on other nodes take other shards).
     */
    public List<Candidate> claimable(
            Tx tx, List<String> groups, List<String> labels, int limit, long spreadGraceMillis) {
        if (groups.isEmpty() || limit <= 0) {
            return List.of();
        }
        String in = String.join(", ", Collections.nCopies(groups.size(), "?"));
        List<Object> args = new ArrayList<>();
        args.add(-spreadGraceMillis);
        args.addAll(groups);
        args.addAll(labels);
        args.add(limit);
        return tx.query(
                "SELECT " + COLUMNS + ", CASE WHEN ready_at <= " + tx.dialect().plusMillis("CURRENT_TIMESTAMP")
                        + " THEN 1 ELSE 0 END AS waited FROM ax_shard s WHERE state IN ('READY', 'RETRYING') AND executor_group IN ("
                        + in + ")"
                        + " AND ready_at <= CURRENT_TIMESTAMP"
                        + " AND EXISTS (SELECT 1 FROM ax_instance i WHERE i.id = s.instance_id AND i.state = 'RUNNING'"
                        + ClaimStore.labelsAllow("i", labels) + ")"
                        + " ORDER BY ready_at, instance_id, shard_index LIMIT ?"
                        + tx.dialect().forUpdateSkipLocked(),
                r -> new Candidate(map(r), r.integer("waited") == 1),
                args.toArray());
    }

    /** RUNNING shards of a run per executor. */
    public Map<String, Integer> runningByExecutor(Tx tx, long instanceId) {
        Map<String, Integer> out = new LinkedHashMap<>();
        tx.query(
                "SELECT executor_id, COUNT(*) AS n FROM ax_shard WHERE instance_id = ? AND state = 'RUNNING' GROUP BY executor_id",
                r -> out.put(r.str("executor_id"), r.integer("n")),
                instanceId);
        return out;
    }

    /** Claims one shard for an executor: a new attempt (the fencing token) and a lease; false if it moved meanwhile. */
    public boolean claim(Tx tx, ShardRow shard, String executorId, long leaseMillis, String actor, String nodeId) {
        ShardState.check(shard.state(), ShardState.RUNNING);
        int n = tx.update(
                "UPDATE ax_shard SET state = 'RUNNING', attempt = attempt + 1, executor_id = ?, lease_expires_at = "
                        + tx.dialect().plusMillis("CURRENT_TIMESTAMP")
                        + ", started_at = CURRENT_TIMESTAMP, finished_at = NULL,"
                        + " pid = NULL, exit_code = NULL, failure_kind = NULL, message = NULL, updated_at = CURRENT_TIMESTAMP"
                        + " WHERE instance_id = ? AND shard_index = ? AND state = ? AND attempt = ?",
                executorId,
                leaseMillis,
                shard.instanceId(),
                shard.index(),
                shard.state(),
                shard.attempt());
        check(n, shard.instanceId(), shard.index());
        if (n == 1) {
            events.appendForRun(
                    tx,
                    shard.instanceId(),
                    EventType.SHARD_CLAIMED,
                    null,
                    null,
                    actor,
                    nodeId,
                    "shard " + label(shard) + " attempt " + (shard.attempt() + 1) + " claimed by executor "
                            + executorId,
                    data(shard.index(), shard.attempt() + 1, Map.of("executor", executorId)));
        }
        return n == 1;
    }

    /**
     * Ends or pauses the RUNNING attempt of a shard — SUCCESS, FAILED, or RETRYING until
     * {@link ShardEnd#retryIn} — if it is still the attempt and executor the caller read (invariant
     * 5), and writes its event. False when fenced out.
     */
    public boolean finish(Tx tx, ShardEnd end) {
        List<Object> args = new ArrayList<>();
        StringBuilder sql = new StringBuilder(
                "UPDATE ax_shard SET state = ?, lease_expires_at = NULL, updated_at = CURRENT_TIMESTAMP,"
                        + " exit_code = ?, failure_kind = ?, message = ?");
        args.add(end.to);
        args.add(end.exitCode);
        args.add(end.kind);
        args.add(end.message);
        if (end.to == ShardState.RETRYING) {
            sql.append(", ready_at = ").append(tx.dialect().plusMillis("CURRENT_TIMESTAMP"));
            args.add(end.retryInMillis);
        } else {
            sql.append(", finished_at = CURRENT_TIMESTAMP");
        }
        sql.append(
                " WHERE instance_id = ? AND shard_index = ? AND state = 'RUNNING' AND attempt = ? AND executor_id = ?");
        ShardRow s = end.shard;
        args.add(s.instanceId());
        args.add(s.index());
        args.add(s.attempt());
        args.add(s.executorId());
        int n = tx.update(sql.toString(), args.toArray());
        check(n, s.instanceId(), s.index());
        if (n == 1 && end.event != null) {
            events.appendForRun(
                    tx, s.instanceId(), end.event, null, null, end.actor, end.nodeId, end.eventMessage, end.data);
        }
        return n == 1;
    }

    /** Stops every shard of the run that may still run (the run ended); returns the ones stopped. */
    public List<ShardRow> stopAll(Tx tx, long instanceId, String why, String actor, String nodeId) {
        List<ShardRow> open = tx.query(
                "SELECT " + COLUMNS + " FROM ax_shard WHERE instance_id = ?"
                        + " AND state IN ('READY', 'RUNNING', 'RETRYING') ORDER BY shard_index",
                ShardStore::map,
                instanceId);
        List<ShardRow> stopped = new ArrayList<>();
        for (ShardRow s : open) {
            ShardState.check(s.state(), ShardState.STOPPED);
            int n = tx.update(
                    "UPDATE ax_shard SET state = 'STOPPED', lease_expires_at = NULL, finished_at = CURRENT_TIMESTAMP,"
                            + " message = ?, updated_at = CURRENT_TIMESTAMP WHERE instance_id = ? AND shard_index = ? AND state = ?",
                    why,
                    instanceId,
                    s.index(),
                    s.state());
            check(n, instanceId, s.index());
            if (n == 1) {
                stopped.add(s);
                events.appendForRun(
                        tx,
                        instanceId,
                        EventType.SHARD_STOPPED,
                        null,
                        null,
                        actor,
                        nodeId,
                        "shard " + label(s) + " stopped (" + s.state() + "): " + why,
                        data(
                                s.index(),
                                s.attempt(),
                                s.executorId() == null ? Map.of() : Map.of("executor", s.executorId())));
            }
        }
        return stopped;
    }

    /** Extends the leases that {@code executorId} still holds on shards; returns the ones it no longer holds. */
    public List<RunRef> renewLeases(Tx tx, String executorId, List<RunRef> held, long leaseMillis) {
        List<RunRef> lost = new ArrayList<>();
        for (RunRef ref : held) {
            int n = tx.update(
                    "UPDATE ax_shard SET lease_expires_at = " + tx.dialect().plusMillis("CURRENT_TIMESTAMP")
                            + " WHERE instance_id = ? AND shard_index = ? AND attempt = ? AND executor_id = ? AND state = 'RUNNING'",
                    leaseMillis,
                    ref.instanceId(),
                    ref.shard(),
                    ref.attempt(),
                    executorId);
            if (n == 0) {
                lost.add(ref);
            }
        }
        return lost;
    }

    /** True if {@code executorId} holds the lease of this shard attempt (the fencing check for reports). */
    public boolean holds(Tx tx, RunRef ref, String executorId) {
        return tx.queryOne(
                        "SELECT 1 AS one FROM ax_shard WHERE instance_id = ? AND shard_index = ? AND attempt = ?"
                                + " AND executor_id = ? AND state = 'RUNNING'",
                        r -> 1,
                        ref.instanceId(),
                        ref.shard(),
                        ref.attempt(),
                        executorId)
                .isPresent();
    }

    public boolean recordPid(Tx tx, RunRef ref, String executorId, long pid) {
        return tx.update(
                        "UPDATE ax_shard SET pid = ?, updated_at = CURRENT_TIMESTAMP WHERE instance_id = ? AND shard_index = ?"
                                + " AND attempt = ? AND executor_id = ? AND state = 'RUNNING'",
                        pid,
                        ref.instanceId(),
                        ref.shard(),
                        ref.attempt(),
                        executorId)
                == 1;
    }

    /** RUNNING shards the server believes {@code executorId} holds. */
    public List<ShardRow> heldBy(Tx tx, String executorId) {
        return tx.query(
                "SELECT " + COLUMNS + " FROM ax_shard WHERE executor_id = ? AND state = 'RUNNING'",
                ShardStore::map,
                executorId);
    }

    /** RUNNING shards whose lease ran out by the database's clock (not locked: each is failed with a fenced update). */
    public List<ShardRow> expiredLeases(Tx tx, int limit) {
        return tx.query(
                "SELECT " + COLUMNS + " FROM ax_shard WHERE state = 'RUNNING' AND lease_expires_at < CURRENT_TIMESTAMP"
                        + " ORDER BY lease_expires_at LIMIT ?",
                ShardStore::map,
                limit);
    }

    /** Runs that have shards still open although the run itself ended (a safety net; normally none). */
    public List<Long> endedWithOpenShards(Tx tx, int limit) {
        return tx.query(
                "SELECT DISTINCT s.instance_id FROM ax_shard s WHERE s.state IN ('READY', 'RUNNING', 'RETRYING')"
                        + " AND NOT EXISTS (SELECT 1 FROM ax_instance i WHERE i.id = s.instance_id AND i.state IN ('RUNNING', 'WAITING_APPROVAL'))"
                        + " ORDER BY s.instance_id LIMIT ?",
                r -> r.lng("instance_id"),
                limit);
    }

    /**
     * True if a shard of one of the groups is claimable now and {@code executorId} could probably
     * get it: a cheap look that claims nothing, for a waiting poll. It leaves out shards of runs at
     * their maxParallelShards, and shards of runs this executor already runs a shard of until they
     * waited {@code spreadGraceMillis} (others should take them first) — so that an executor the
     * spreading rule turns away waits instead of polling in a hot loop.
     */
    public boolean readyFor(
            Tx tx, String executorId, List<String> groups, List<String> labels, long spreadGraceMillis) {
        if (groups.isEmpty()) {
            return false;
        }
        String in = String.join(", ", Collections.nCopies(groups.size(), "?"));
        List<Object> args = new ArrayList<>(groups);
        args.addAll(labels);
        args.add(executorId);
        args.add(-spreadGraceMillis);
        return tx.queryOne(
                        "SELECT 1 AS one FROM ax_shard s WHERE state IN ('READY', 'RETRYING') AND executor_group IN ("
                                + in + ")"
                                + " AND ready_at <= CURRENT_TIMESTAMP"
                                + " AND EXISTS (SELECT 1 FROM ax_instance i WHERE i.id = s.instance_id"
                                + ClaimStore.labelsAllow("i", labels) + ")"
                                + " AND (max_parallel IS NULL OR max_parallel > (SELECT COUNT(*) FROM ax_shard r"
                                + " WHERE r.instance_id = s.instance_id AND r.state = 'RUNNING'))"
                                + " AND (NOT EXISTS (SELECT 1 FROM ax_shard m WHERE m.instance_id = s.instance_id AND m.state = 'RUNNING'"
                                + " AND m.executor_id = ?) OR ready_at <= "
                                + tx.dialect().plusMillis("CURRENT_TIMESTAMP") + ")"
                                + " LIMIT 1",
                        r -> 1,
                        args.toArray())
                .isPresent();
    }

    public Optional<ShardRow> find(Tx tx, long instanceId, int index) {
        return tx.queryOne(
                "SELECT " + COLUMNS + " FROM ax_shard WHERE instance_id = ? AND shard_index = ?",
                ShardStore::map,
                instanceId,
                index);
    }

    /** The shards of a run by index; empty for a run that is not sharded (or not started). */
    public List<ShardRow> ofRun(Tx tx, long instanceId) {
        return tx.query(
                "SELECT " + COLUMNS + " FROM ax_shard WHERE instance_id = ? ORDER BY shard_index",
                ShardStore::map,
                instanceId);
    }

    /** Event data of a shard step: {@code shard}, {@code attempt}, then the rest. */
    public static Map<String, Object> data(int index, int attempt, Map<String, Object> more) {
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("shard", index);
        data.put("attempt", attempt);
        data.putAll(more);
        return data;
    }

    /** {@code 2/4} style: index and total, as users count shards (0-based index). */
    public static String label(ShardRow s) {
        return s.index() + "/" + s.total();
    }

    private static void check(int n, long instanceId, int index) {
        if (n > 1) {
            throw new StoreException(
                    "a state change of shard " + index + " of run " + instanceId + " touched " + n + " rows");
        }
    }

    static ShardRow map(Tx.Row r) throws SQLException {
        return new ShardRow(
                r.lng("instance_id"),
                r.integer("shard_index"),
                r.integer("shard_total"),
                r.str("executor_group"),
                r.enumOf(ShardState.class, "state"),
                r.integer("attempt"),
                r.instant("ready_at"),
                r.str("executor_id"),
                r.instant("lease_expires_at"),
                r.nullableLong("pid"),
                r.nullableInt("exit_code"),
                r.enumOf(FailureKind.class, "failure_kind"),
                r.str("message"),
                r.instant("started_at"),
                r.instant("finished_at"));
    }
}
