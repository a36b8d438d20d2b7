package dev.ax.store;

import dev.ax.domain.protocol.RunRef;
import dev.ax.domain.run.Cause;
import dev.ax.domain.run.EventType;
import dev.ax.domain.run.FailureKind;
import dev.ax.domain.run.InstanceState;
import dev.ax.domain.run.Transitions;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * Instances: creation keyed by slot, the state machine's conditional updates, claiming by
 * executors, leases. Every state change goes through {@link #move}, which checks the transition
 * table, updates {@code WHERE id = ? AND state = ?} (plus the fencing token when given) and
 * writes the event in the same transaction.
 */
public final class InstanceStore {
    static final String COLUMNS =
            "id, task_id, task_name, task_version, cause, fire_key, scheduled_at, params, state, attempt,"
                    + " max_attempts, executor_group, ready_at, executor_id, lease_expires_at, pid, exit_code, failure_kind, message,"
                    + " actor, node_id, parent_id, root_id, request_id, created_at, started_at, finished_at, updated_at, approval_deadline";

    private final EventStore events;

    public InstanceStore(EventStore events) {
        this.events = events;
    }

    /**
     * Creates an instance and its CREATED event, or returns empty when the (task, fire key) slot
     * already has one: the unique index, not a check-then-insert, makes the second one impossible.
     */
    public Optional<Long> create(Tx tx, NewInstance n) {
        if (!Transitions.isInitial(n.state())) {
            throw new IllegalArgumentException("an instance cannot start in " + n.state());
        }
        String finished = n.state().isTerminal() ? "CURRENT_TIMESTAMP" : "NULL";
        String sql =
                "INSERT INTO ax_instance (task_id, task_name, task_version, cause, fire_key, scheduled_at, params, state,"
                        + " attempt, max_attempts, executor_group, ready_at, actor, node_id, parent_id, root_id, business_date, created_at,"
                        + " updated_at, finished_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?, ?, ?, ?, ?, ?, CURRENT_TIMESTAMP,"
                        + " CURRENT_TIMESTAMP, " + finished + ")"
                        + tx.dialect().onSlotConflictDoNothing();
        Object[] values = {
            n.taskId(),
            n.taskName(),
            n.taskVersion(),
            n.cause(),
            n.fireKey(),
            n.scheduledAt(),
            n.params().isEmpty() ? null : Json.write(n.params()),
            n.state(),
            n.maxAttempts(),
            n.group(),
            n.scheduledAt(),
            n.actor(),
            n.nodeId(),
            n.parentId(),
            n.rootId(),
            n.businessDate()
        };
        Map<String, Object> data = Map.of("cause", n.cause().wireName(), "fireKey", n.fireKey());
        if (tx.dialect().writesInWith()) {
            // The run and its CREATED event in one round trip; a taken slot inserts neither.
            List<Object> args = new ArrayList<>(Arrays.asList(values));
            args.addAll(Arrays.asList(
                    EventType.CREATED, null, n.state(), n.actor(), n.nodeId(), n.message(), EventStore.dataJson(data)));
            return tx.queryOne(
                    "WITH created AS (" + sql + " RETURNING id, task_id, task_name, attempt) "
                            + EventStore.insertFrom("created") + " RETURNING instance_id",
                    r -> r.lng("instance_id"),
                    args.toArray());
        }
        Optional<Long> id = tx.insertUnlessDuplicate(sql, values);
        id.ifPresent(i -> events.appendForInstance(
                tx, i, EventType.CREATED, null, n.state(), n.actor(), n.nodeId(), n.message(), data));
        return id;
    }

    /**
     * Applies one state change if the instance is still where the caller saw it. Returns false
     * when it is not (another node or a report got there first: a lost race, which is normal);
     * throws if the move is not in the transition table or more than one row changed.
     */
    public boolean move(Tx tx, Move m) {
        Transitions.check(m.from, m.to);
        StringBuilder sql = new StringBuilder("UPDATE ax_instance SET state = ?, updated_at = CURRENT_TIMESTAMP");
        List<Object> args = new ArrayList<>();
        args.add(m.to);
        m.sets.forEach((column, value) -> {
            sql.append(", ").append(column.sql).append(" = ");
            if (value instanceof Move.DbTime t) {
                if (t.plusMillis() == 0) {
                    sql.append("CURRENT_TIMESTAMP");
                } else {
                    sql.append(tx.dialect().plusMillis("CURRENT_TIMESTAMP"));
                    args.add(t.plusMillis());
                }
            } else {
                sql.append('?');
                args.add(value);
            }
        });
        sql.append(" WHERE id = ? AND state = ?");
        args.add(m.instanceId);
        args.add(m.from);
        if (m.fenceAttempt != null) {
            sql.append(" AND attempt = ? AND executor_id = ?");
            args.add(m.fenceAttempt);
            args.add(m.fenceExecutor);
        }
        if (m.event != null && tx.dialect().writesInWith()) {
            // The change and its event in one round trip: the event is written for the row moved, or not at all.
            args.addAll(
                    Arrays.asList(m.event, m.from, m.to, m.actor, m.nodeId, m.message, EventStore.dataJson(m.data)));
            int n = tx.update(
                    "WITH moved AS (" + sql + " RETURNING id, task_id, task_name, attempt) "
                            + EventStore.insertFrom("moved"),
                    args.toArray());
            if (n > 1) {
                throw new StoreException("a state change of instance " + m.instanceId + " touched " + n + " rows");
            }
            return n == 1;
        }
        int n = tx.update(sql.toString(), args.toArray());
        if (n > 1) {
            throw new StoreException("a state change of instance " + m.instanceId + " touched " + n + " rows");
        }
        if (n == 1 && m.event != null) {
            events.appendForInstance(tx, m.instanceId, m.event, m.from, m.to, m.actor, m.nodeId, m.message, m.data);
        }
        return n == 1;
    }

    /**
     * Claims up to {@code max} READY instances of the given groups that are due by the database's
     * clock, in one statement per dialect: each becomes RUNNING with a new attempt number (the
     * fencing token) and a lease held by {@code executorId}. SKIP LOCKED lets concurrent claimers
     * on other nodes take other rows instead of waiting.
     */
    public List<InstanceRow> claim(
            Tx tx, String executorId, List<String> groups, int max, long leaseMillis, String nodeId) {
        return claim(tx, executorId, groups, List.of(), max, leaseMillis, nodeId);
    }

    /**
     * As above, for an executor carrying {@code labels}: a run whose task version names
     * {@code environment} labels is claimed only by an executor carrying all of them
     * ({@link dev.ax.domain.policy.EnvironmentMatch}); runs without labels go to any executor.
     */
    public List<InstanceRow> claim(
            Tx tx,
            String executorId,
            List<String> groups,
            List<String> labels,
            int max,
            long leaseMillis,
            String nodeId) {
        return claim(tx, executorId, groups, labels, max, leaseMillis, nodeId, null);
    }

    /**
     * As above, also taking runs not due yet whose {@code ready_at} is at or before {@code dueBy} (null: only runs due
     * now), for a dispatcher that hands them out at their slot ({@link #claimEach}).
     */
    public List<InstanceRow> claim(
            Tx tx,
            String executorId,
            List<String> groups,
            List<String> labels,
            int max,
            long leaseMillis,
            String nodeId,
            Instant dueBy) {
        return claimEach(tx, List.of(new Claimant(executorId, max)), groups, labels, leaseMillis, nodeId, dueBy)
                .getFirst();
    }

    /** An executor claiming up to {@code max} runs. */
    public record Claimant(String executorId, int max) {}

    /**
     * Claims for several executors of the same groups and labels at once: one read of the READY
     * index for all of them, the oldest runs to the first claimant, and on PostgreSQL one statement
     * that moves every run to its executor and writes the CLAIMED events. Claims that read the index
     * one after the other in a transaction each stepped over the runs the ones before had locked,
     * and paid again for every entry the index still holds of runs claimed since the last vacuum.
     * Returns each claimant's runs, in the order given, oldest first.
     *
     * <p>With {@code dueBy}, also runs fired ahead whose slot ({@code ready_at}) is at or before it, a time the
     * database gave ({@link #nextReady}); null takes only runs due now. The runs of such a claim get {@code dueBy} as
     * their {@code started_at} (or now, if it has passed): the dispatcher hands them out then, not before. Their
     * CLAIMED events (which say so) and their leases count from the claim.
     */
    public List<List<InstanceRow>> claimEach(
            Tx tx,
            List<Claimant> claimants,
            List<String> groups,
            List<String> labels,
            long leaseMillis,
            String nodeId,
            Instant dueBy) {
        int total = claimants.stream().mapToInt(c -> Math.max(0, c.max())).sum();
        if (groups.isEmpty() || total <= 0) {
            return claimants.stream().<List<InstanceRow>>map(c -> List.of()).toList();
        }
        Transitions.check(InstanceState.READY, InstanceState.RUNNING);
        // The event says why a run is RUNNING before its slot: the dispatcher holds it until then.
        String message = dueBy == null ? null : "claimed ahead of its slot; handed out at the slot";
        String in = String.join(", ", Collections.nCopies(groups.size(), "?"));
        List<Object> pick = new ArrayList<>(groups);
        pick.addAll(labels);
        if (dueBy != null) {
            pick.add(dueBy);
        }
        pick.add(total);
        List<Long> ids = tx.query(
                "SELECT id FROM ax_instance WHERE state = 'READY' AND executor_group IN (" + in + ")"
                        + " AND ready_at <= " + (dueBy == null ? "CURRENT_TIMESTAMP" : "?") + lacksNoLabel(labels)
                        + " ORDER BY ready_at, id LIMIT ?"
                        + tx.dialect().forUpdateSkipLocked(),
                r -> r.lng("id"),
                pick.toArray());
        // The oldest runs to the first claimant, each taking up to its max.
        List<List<Long>> shares = new ArrayList<>(claimants.size());
        int at = 0;
        for (Claimant c : claimants) {
            int end = Math.min(ids.size(), at + Math.max(0, c.max()));
            shares.add(ids.subList(at, end));
            at = end;
        }
        String set = "state = 'RUNNING', attempt = attempt + 1, lease_expires_at = "
                + tx.dialect().plusMillis("CURRENT_TIMESTAMP")
                + ", started_at = "
                + (dueBy == null
                        ? "CURRENT_TIMESTAMP"
                        : "GREATEST(CURRENT_TIMESTAMP, CAST(? AS TIMESTAMP WITH TIME ZONE))")
                + ", pid = NULL, exit_code = NULL, failure_kind = NULL, message = NULL,"
                + " updated_at = CURRENT_TIMESTAMP";
        // By id only: the SELECT above locked these rows, and a row locked FOR UPDATE was READY when
        // locked (PostgreSQL re-checks the WHERE on the newest version) and stays so until this
        // transaction ends. A "state = 'READY'" here was not just redundant: with statistics that
        // lag a fast-growing backlog the planner bitmap-scanned every READY run (166,000 of them,
        // 77 ms, half of PostgreSQL's CPU at 10,000 tasks a second) to find these hundred.
        if (tx.dialect().writesInWith() && !ids.isEmpty()) {
            List<Long> claimedIds = new ArrayList<>(ids.size());
            List<String> executors = new ArrayList<>(ids.size());
            for (int i = 0; i < claimants.size(); i++) {
                for (Long id : shares.get(i)) {
                    claimedIds.add(id);
                    executors.add(claimants.get(i).executorId());
                }
            }
            List<Object> claimArgs = new ArrayList<>(
                    List.of(claimedIds.toArray(Long[]::new), executors.toArray(String[]::new), leaseMillis));
            if (dueBy != null) {
                claimArgs.add(dueBy);
            }
            claimArgs.addAll(
                    Arrays.asList(EventType.CLAIMED, InstanceState.READY, InstanceState.RUNNING, nodeId, message));
            // The moves, their CLAIMED events (actor and data name each run's executor) and the rows as claimed, in one
            // round trip.
            String update = "UPDATE ax_instance SET " + set
                    + ", executor_id = v.claimant FROM v WHERE ax_instance.id = v.run_id";
            String events = EventStore.insertEachFrom("(SELECT id, task_id, task_name, CAST(? AS VARCHAR) AS type,"
                    + " CAST(? AS VARCHAR) AS from_state, CAST(? AS VARCHAR) AS to_state, attempt, 'executor:' || executor_id AS actor,"
                    + " CAST(? AS VARCHAR) AS node_id, CAST(? AS VARCHAR) AS message,"
                    + " '{\"executor\":' || to_json(executor_id)::text || '}' AS data FROM claimed) c");
            List<InstanceRow> rows = tx.query(
                    "WITH v (run_id, claimant) AS (SELECT * FROM unnest(CAST(? AS BIGINT[]), CAST(? AS VARCHAR[]))),"
                            + " claimed AS (" + update + " RETURNING " + CLAIMED_COLUMNS + "), events AS (" + events
                            + ")"
                            + " SELECT * FROM claimed ORDER BY ready_at, id",
                    InstanceStore::map,
                    claimArgs.toArray());
            if (rows.size() != ids.size()) {
                throw new StoreException("claimed " + rows.size() + " of " + ids.size() + " locked instances");
            }
            Map<Long, InstanceRow> byId = rows.stream().collect(Collectors.toMap(InstanceRow::id, r -> r));
            return shares.stream()
                    .map(share -> share.stream().map(byId::get).toList())
                    .toList();
        }
        List<List<InstanceRow>> out = new ArrayList<>(claimants.size());
        for (int i = 0; i < claimants.size(); i++) {
            List<Long> share = shares.get(i);
            if (share.isEmpty()) {
                out.add(List.of());
                continue;
            }
            String executorId = claimants.get(i).executorId();
            String idList = String.join(", ", Collections.nCopies(share.size(), "?"));
            List<Object> args = new ArrayList<>();
            args.add(leaseMillis);
            if (dueBy != null) {
                args.add(dueBy);
            }
            args.add(executorId);
            args.addAll(share);
            int n = tx.update(
                    "UPDATE ax_instance SET " + set + ", executor_id = ? WHERE id IN (" + idList + ")", args.toArray());
            if (n != share.size()) {
                throw new StoreException("claimed " + n + " of " + share.size() + " locked instances");
            }
            events.appendForInstances(
                    tx,
                    share,
                    EventType.CLAIMED,
                    InstanceState.READY,
                    InstanceState.RUNNING,
                    "executor:" + executorId,
                    nodeId,
                    message,
                    Map.of("executor", executorId));
            out.add(tx.query(
                    "SELECT " + COLUMNS + " FROM ax_instance WHERE id IN (" + idList + ") ORDER BY ready_at, id",
                    InstanceStore::map,
                    share.toArray()));
        }
        return out;
    }

    /** {@link #COLUMNS}, each named with its table: the claim's update joins a row set that names some of them too. */
    private static final String CLAIMED_COLUMNS =
            Arrays.stream(COLUMNS.split(",\\s*")).map(c -> "ax_instance." + c).collect(Collectors.joining(", "));

    /**
     * RUNNING runs of an executor group, on every executor. A group with a capacity asks at every
     * claim, in the claim's transaction, which reads by plain index scans
     * ({@link Tx#preferPlainIndexScans()}).
     */
    public int countRunning(Tx tx, String group) {
        return tx.queryOne(
                        "SELECT COUNT(*) AS n FROM ax_instance WHERE state = 'RUNNING' AND executor_group = ?",
                        r -> r.integer("n"),
                        group)
                .orElse(0);
    }

    /** The earliest READY run's slot ({@code ready_at}) and how long until it by the database's clock (zero when due). */
    public record NextReady(Instant readyAt, Duration until) {}

    /**
     * The earliest READY run these groups (and labels) may claim: its slot and how long until it, by the database's
     * clock; empty when none waits. Runs fired ahead of their slot wait READY with {@code ready_at} in the future; a
     * waiting poll sleeps until it may claim them, naming the slot as {@link #claimEach}'s {@code dueBy}.
     */
    public Optional<NextReady> nextReady(Tx tx, List<String> groups, List<String> labels) {
        if (groups.isEmpty()) {
            return Optional.empty();
        }
        String in = String.join(", ", Collections.nCopies(groups.size(), "?"));
        List<Object> args = new ArrayList<>(groups);
        args.addAll(labels);
        return tx.queryOne(
                "SELECT ready_at, CURRENT_TIMESTAMP AS now FROM ax_instance WHERE state = 'READY' AND executor_group IN ("
                        + in + ")" + lacksNoLabel(labels) + " ORDER BY ready_at FETCH FIRST 1 ROWS ONLY",
                r -> {
                    Instant readyAt = r.instant("ready_at");
                    Duration d = Duration.between(r.instant("now"), readyAt);
                    return new NextReady(readyAt, d.isNegative() ? Duration.ZERO : d);
                },
                args.toArray());
    }

    /**
     * The environment condition of a claim: the run's task version needs no label outside the
     * executor's {@code labels} (bound in order after the groups).
     */
    private static String lacksNoLabel(List<String> labels) {
        return labelsAllow("ax_instance", labels);
    }

    /**
     * {@code AND …}: the run {@code alias} (a row of ax_instance) needs no environment label beyond
     * {@code labels}; bind {@code labels} at its placeholders.
     */
    static String labelsAllow(String alias, List<String> labels) {
        String outside = labels.isEmpty()
                ? ""
                : " AND l.label NOT IN (" + String.join(", ", Collections.nCopies(labels.size(), "?")) + ")";
        return " AND NOT EXISTS (SELECT 1 FROM ax_task_label l WHERE l.task_id = " + alias + ".task_id"
                + " AND l.version = " + alias + ".task_version" + outside + ")";
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
     * RUNNING instances whose lease ran out by the database's clock. Not locked: the reaper fails
     * each with a conditional, fenced move after locking its task (tasks before instances, the
     * one lock order), and a node that loses the race simply changes nothing. Read by plain index
     * scans ({@link Tx#preferPlainIndexScans()}): housekeeping asks at every tick.
     */
    public List<InstanceRow> expiredLeases(Tx tx, int limit) {
        tx.preferPlainIndexScans();
        return tx.query(EXPIRED_LEASES, InstanceStore::map, limit);
    }

    static final String EXPIRED_LEASES = "SELECT " + COLUMNS + " FROM ax_instance WHERE state = 'RUNNING'"
            + " AND lease_expires_at < CURRENT_TIMESTAMP ORDER BY lease_expires_at LIMIT ?";

    /** How many runs of a task hold a concurrency slot (READY, RUNNING, RETRYING, WAITING_APPROVAL) and how many wait (BLOCKED). */
    public record Occupancy(int active, int waiting) {}

    public Occupancy occupancy(Tx tx, long taskId) {
        int[] counts = new int[2];
        // Preview runs (of an approval request) take no slot: they belong to a run that holds one; test runs of a draft
        // neither.
        tx.query(
                "SELECT state, COUNT(*) AS n FROM ax_instance WHERE task_id = ?"
                        + " AND state IN ('READY', 'RUNNING', 'RETRYING', 'WAITING_APPROVAL', 'BLOCKED') AND cause NOT IN ('PREVIEW', 'TEST') GROUP BY state",
                r -> {
                    counts[r.str("state").equals("BLOCKED") ? 1 : 0] += r.integer("n");
                    return null;
                },
                taskId);
        return new Occupancy(counts[0], counts[1]);
    }

    /**
     * How many runs are in each of {@code states} now (zero for a state with none). One count
     * per state, the state written into the statement: PostgreSQL answers each from that state's
     * partial index (READY and RUNNING have their own, the rarer states share
     * {@code ax_instance_state}). SUCCESS has none (every run writes it): counting it reads the table.
     */
    public Map<InstanceState, Long> countInStates(Tx tx, Collection<InstanceState> states) {
        Map<InstanceState, Long> counts = new EnumMap<>(InstanceState.class);
        states.forEach(s -> counts.put(s, 0L));
        if (states.isEmpty()) {
            return counts;
        }
        String sql = states.stream()
                .distinct()
                .map(s -> "SELECT " + Tx.literal(s) + " AS state, COUNT(*) AS n FROM ax_instance WHERE state = "
                        + Tx.literal(s))
                .collect(Collectors.joining(" UNION ALL "));
        tx.query(sql, r -> {
            counts.put(r.enumOf(InstanceState.class, "state"), r.lng("n"));
            return null;
        });
        return counts;
    }

    /** True if some run of the task waits for a concurrency slot (BLOCKED). */
    public boolean hasWaiting(Tx tx, long taskId) {
        return tx.queryOne(
                        "SELECT 1 AS one FROM ax_instance WHERE task_id = ? AND state = 'BLOCKED' FETCH FIRST 1 ROWS ONLY",
                        r -> 1,
                        taskId)
                .isPresent();
    }

    /** The runs of a task in the given states, oldest first. */
    public List<InstanceRow> ofTaskInStates(Tx tx, long taskId, List<InstanceState> states, int limit) {
        String in = String.join(", ", Collections.nCopies(states.size(), "?"));
        List<Object> args = new ArrayList<>();
        args.add(taskId);
        args.addAll(states);
        args.add(limit);
        return tx.query(
                "SELECT " + COLUMNS + " FROM ax_instance WHERE task_id = ? AND state IN (" + in
                        + ") ORDER BY id LIMIT ?",
                InstanceStore::map,
                args.toArray());
    }

    /** Sets or clears when an approval request expires ({@code null} = never). */
    public void setApprovalDeadline(Tx tx, long id, Long millisFromNow) {
        if (millisFromNow == null) {
            tx.update("UPDATE ax_instance SET approval_deadline = NULL WHERE id = ?", id);
        } else {
            tx.update(
                    "UPDATE ax_instance SET approval_deadline = " + tx.dialect().plusMillis("CURRENT_TIMESTAMP")
                            + " WHERE id = ?",
                    millisFromNow,
                    id);
        }
    }

    /** Approval requests past their deadline by the database's clock. */
    public List<InstanceRow> expiredApprovals(Tx tx, int limit) {
        return tx.query(
                "SELECT " + COLUMNS + " FROM ax_instance WHERE state = 'WAITING_APPROVAL'"
                        + " AND approval_deadline < CURRENT_TIMESTAMP ORDER BY approval_deadline LIMIT ?",
                InstanceStore::map,
                limit);
    }

    /** The preview run of an approval request, if it has one. */
    public Optional<InstanceRow> previewOf(Tx tx, long instanceId) {
        return tx
                .query(
                        "SELECT " + COLUMNS
                                + " FROM ax_instance WHERE parent_id = ? AND cause = 'PREVIEW' ORDER BY id DESC",
                        InstanceStore::map,
                        instanceId)
                .stream()
                .findFirst();
    }

    /** Updates what a waiting run says about itself (no state change), e.g. what it waits for now. */
    public void setMessage(Tx tx, long id, String message) {
        tx.update("UPDATE ax_instance SET message = ? WHERE id = ?", message, id);
    }

    /** Stores the rendered idempotency key, sent as X-AX-Request-ID / AX_REQUEST_ID. */
    public void setRequestKey(Tx tx, long id, String key) {
        tx.update("UPDATE ax_instance SET request_id = ? WHERE id = ?", key, id);
    }

    /** A run of the task with this idempotency key that succeeded or is still going, if any. */
    public Optional<InstanceRow> doneOrActiveWithKey(Tx tx, long taskId, String key) {
        return tx
                .query(
                        "SELECT " + COLUMNS + " FROM ax_instance WHERE task_id = ? AND request_id = ?"
                                + " AND state IN ('SUCCESS', 'READY', 'RUNNING', 'RETRYING', 'WAITING_APPROVAL', 'BLOCKED', 'WAITING_DEPENDENCY') ORDER BY id LIMIT 1",
                        InstanceStore::map,
                        taskId,
                        key)
                .stream()
                .findFirst();
    }

    /** Tasks that have runs waiting for a concurrency slot. */
    public List<Long> tasksWithWaitingRuns(Tx tx, int limit) {
        return tx.query(
                "SELECT DISTINCT task_id FROM ax_instance WHERE state = 'BLOCKED' ORDER BY task_id LIMIT ?",
                r -> r.lng("task_id"),
                limit);
    }

    /** RETRYING instances whose next attempt is due. */
    public List<InstanceRow> lockDueRetries(Tx tx, int limit) {
        return tx.query(
                "SELECT " + COLUMNS + " FROM ax_instance WHERE state = 'RETRYING' AND ready_at <= CURRENT_TIMESTAMP"
                        + " ORDER BY ready_at LIMIT ?" + tx.dialect().forUpdateSkipLocked(),
                InstanceStore::map,
                limit);
    }

    /** The runs the server believes {@code executorId} holds. */
    public List<InstanceRow> heldBy(Tx tx, String executorId) {
        return tx.query(
                "SELECT " + COLUMNS + " FROM ax_instance WHERE executor_id = ? AND state = 'RUNNING'",
                InstanceStore::map,
                executorId);
    }

    public Optional<InstanceRow> find(Tx tx, long id) {
        return tx.queryOne("SELECT " + COLUMNS + " FROM ax_instance WHERE id = ?", InstanceStore::map, id);
    }

    /** The instances of {@code ids} that exist, in id order, in one statement. */
    public List<InstanceRow> findAll(Tx tx, Collection<Long> ids) {
        if (ids.isEmpty()) {
            return List.of();
        }
        return tx.query(
                "SELECT " + COLUMNS + " FROM ax_instance WHERE id IN ("
                        + String.join(", ", Collections.nCopies(ids.size(), "?")) + ") ORDER BY id",
                InstanceStore::map,
                ids.toArray());
    }

    public Optional<InstanceRow> findBySlot(Tx tx, long taskId, String fireKey) {
        return tx.queryOne(
                "SELECT " + COLUMNS + " FROM ax_instance WHERE task_id = ? AND fire_key = ?",
                InstanceStore::map,
                taskId,
                fireKey);
    }

    /**
     * The runs an executor still holds: RUNNING, or WAITING_APPROVAL with that executor (the job asked mid-run and keeps
     * running meanwhile). The fence of every report about a running attempt; {@link InstanceRow#heldBy} in Java.
     * {@code table} prefixes the column ({@code "i."}, or {@code ""}).
     */
    static String held(String table) {
        return table + "state IN ('RUNNING', 'WAITING_APPROVAL')";
    }

    /**
     * Records the pid of a started attempt (no state change: the run is already RUNNING, or a job that asked for
     * approval before its "started" report arrived waits mid-run, its process still going).
     */
    public boolean recordPid(Tx tx, RunRef ref, String executorId, long pid) {
        return tx.update(
                        "UPDATE ax_instance SET pid = ?, updated_at = CURRENT_TIMESTAMP WHERE id = ? AND attempt = ?"
                                + " AND executor_id = ? AND " + held(""),
                        pid,
                        ref.instanceId(),
                        ref.attempt(),
                        executorId)
                == 1;
    }

    /**
     * {@link #recordPid} and its STARTED event, fenced like it: false (and no event) when the
     * executor no longer holds the attempt. One statement on PostgreSQL.
     */
    public boolean recordStarted(Tx tx, RunRef ref, String executorId, long pid, String actor, String nodeId) {
        String message = startedMessage(executorId, pid);
        Map<String, Object> data = startedData(executorId, pid);
        if (!tx.dialect().writesInWith()) {
            if (!recordPid(tx, ref, executorId, pid)) {
                return false;
            }
            events.appendForInstance(tx, ref.instanceId(), EventType.STARTED, null, null, actor, nodeId, message, data);
            return true;
        }
        return tx.update(
                        "WITH started AS (UPDATE ax_instance SET pid = ?, updated_at = CURRENT_TIMESTAMP WHERE id = ? AND attempt = ?"
                                + " AND executor_id = ? AND " + held("")
                                + " RETURNING id, task_id, task_name, attempt) "
                                + EventStore.insertFrom("started"),
                        pid,
                        ref.instanceId(),
                        ref.attempt(),
                        executorId,
                        EventType.STARTED,
                        null,
                        null,
                        actor,
                        nodeId,
                        message,
                        EventStore.dataJson(data))
                == 1;
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

    /** Instances newest first, filtered; {@code beforeId} is the page cursor. */
    public List<InstanceRow> list(Tx tx, InstanceFilter f, long beforeId, int limit) {
        StringBuilder sql = new StringBuilder("SELECT " + COLUMNS + " FROM ax_instance WHERE id < ?");
        List<Object> args = new ArrayList<>();
        args.add(beforeId);
        if (f.taskName() != null) {
            sql.append(" AND task_name = ?");
            args.add(f.taskName());
        }
        if (f.state() != null) {
            sql.append(" AND state = ").append(Tx.literal(f.state()));
        }
        if (f.scheduledFrom() != null) {
            sql.append(" AND scheduled_at >= ?");
            args.add(f.scheduledFrom());
        }
        if (f.scheduledTo() != null) {
            sql.append(" AND scheduled_at < ?");
            args.add(f.scheduledTo());
        }
        sql.append(" ORDER BY id DESC LIMIT ?");
        args.add(limit);
        return tx.query(sql.toString(), InstanceStore::map, args.toArray());
    }

    /** Filters of {@link #list}; null means any. */
    public record InstanceFilter(String taskName, InstanceState state, Instant scheduledFrom, Instant scheduledTo) {
        public static final InstanceFilter ALL = new InstanceFilter(null, null, null, null);
    }

    /** Cancels the READY/RETRYING/BLOCKED instances of a task (it was deleted): nothing waits for a recipe that is gone. */
    public int cancelWaiting(Tx tx, long taskId, String actor, String nodeId, String reason) {
        List<InstanceRow> waiting = tx.query(
                "SELECT " + COLUMNS + " FROM ax_instance WHERE task_id = ?"
                        + " AND state IN ('READY', 'RETRYING', 'BLOCKED', 'WAITING_APPROVAL', 'WAITING_DEPENDENCY') FOR UPDATE",
                InstanceStore::map,
                taskId);
        int n = 0;
        for (InstanceRow row : waiting) {
            if (move(
                    tx,
                    Move.of(row.id(), row.state(), InstanceState.CANCELED)
                            .finished()
                            .event(EventType.CANCELED, actor, nodeId, reason))) {
                n++;
            }
        }
        return n;
    }

    /** The scheduled runs of a task fired ahead of their slot that are not due yet (READY, {@code ready_at} ahead), locked. */
    public List<InstanceRow> lockFiredAhead(Tx tx, long taskId) {
        return tx.query(
                "SELECT " + COLUMNS + " FROM ax_instance WHERE task_id = ? AND state = 'READY'"
                        + " AND ready_at > CURRENT_TIMESTAMP AND cause IN ('CRON', 'INTERVAL') ORDER BY id FOR UPDATE",
                InstanceStore::map,
                taskId);
    }

    /**
     * Moves a run fired ahead, not due yet, to another version of its task (the task was edited
     * before the slot and the slot's run should do what the edit says); false if it is due or gone.
     */
    public boolean repoint(Tx tx, long id, int version, String group, int maxAttempts) {
        return tx.update(
                        "UPDATE ax_instance SET task_version = ?, executor_group = ?, max_attempts = ?, updated_at = CURRENT_TIMESTAMP"
                                + " WHERE id = ? AND state = 'READY' AND ready_at > CURRENT_TIMESTAMP",
                        version,
                        group,
                        maxAttempts,
                        id)
                == 1;
    }

    static InstanceRow map(Tx.Row r) throws SQLException {
        String params = r.str("params");
        return new InstanceRow(
                r.lng("id"),
                r.lng("task_id"),
                r.str("task_name"),
                r.integer("task_version"),
                r.enumOf(Cause.class, "cause"),
                r.str("fire_key"),
                r.instant("scheduled_at"),
                params == null ? Map.of() : Json.readMap(params),
                r.enumOf(InstanceState.class, "state"),
                r.integer("attempt"),
                r.integer("max_attempts"),
                r.str("executor_group"),
                r.instant("ready_at"),
                r.str("executor_id"),
                r.instant("lease_expires_at"),
                r.nullableLong("pid"),
                r.nullableInt("exit_code"),
                r.enumOf(FailureKind.class, "failure_kind"),
                r.str("message"),
                r.str("actor"),
                r.str("node_id"),
                r.nullableLong("parent_id"),
                r.nullableLong("root_id"),
                r.str("request_id"),
                r.instant("created_at"),
                r.instant("started_at"),
                r.instant("finished_at"),
                r.instant("updated_at"),
                r.instant("approval_deadline"));
    }
}
