package dev.ax.store;

import dev.ax.domain.run.Cause;
import dev.ax.domain.run.EventType;
import dev.ax.domain.run.FailureKind;
import dev.ax.domain.run.RunState;
import dev.ax.domain.run.Transitions;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * Runs: creation keyed by slot, the state machine's conditional updates, reads. Claiming
 * is {@link ClaimStore}'s, leases and the fence of reports {@link LeaseStore}'s. Every state change goes through {@link #move}, which checks the transition
 * table, updates {@code WHERE id = ? AND state = ?} (plus the fencing token when given) and
 * writes the event in the same transaction.
 */
public final class RunStore {
    static final String COLUMNS =
            "id, task_id, task_name, task_version, cause, fire_key, scheduled_at, params, state, attempt,"
                    + " max_attempts, executor_group, ready_at, executor_id, lease_expires_at, pid, exit_code, failure_kind, message,"
                    + " actor, node_id, parent_id, root_id, request_id, created_at, started_at, finished_at, updated_at, approval_deadline";

    private final EventStore events;

    public RunStore(EventStore events) {
        this.events = events;
    }

    /**
     * Creates a run and, unless it is routine ({@link RoutineEvents#routineCreate}), its CREATED event, or returns empty when the (task, fire key) slot
     * already has one: the unique index, not a check-then-insert, makes the second one impossible.
     */
    public Optional<Long> create(Tx tx, NewRun n) {
        if (!Transitions.isInitial(n.state())) {
            throw new IllegalArgumentException("a run cannot start in " + n.state());
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
        boolean routine = RoutineEvents.routineCreate(n);
        Optional<Created> created;
        if (!tx.dialect().writesInWith()) {
            created = tx.insertUnlessDuplicate(sql, values).map(i -> new Created(i, createdAt(tx, i)));
            created.filter(c -> !routine)
                    .ifPresent(c -> events.appendForRun(
                            tx, c.id(), EventType.CREATED, null, n.state(), n.actor(), n.nodeId(), n.message(), data));
        } else if (routine) {
            created = tx.queryOne(sql + " RETURNING id, created_at", Created::of, values);
        } else {
            // The run and its CREATED event in one round trip; a taken slot inserts neither.
            List<Object> args = new ArrayList<>(Arrays.asList(values));
            args.addAll(Arrays.asList(
                    EventType.CREATED, null, n.state(), n.actor(), n.nodeId(), n.message(), EventStore.dataJson(data)));
            created = tx.queryOne(
                    "WITH created AS (" + sql + " RETURNING id, task_id, task_name, attempt, created_at), logged AS ("
                            + EventStore.insertFrom("created") + ") SELECT id, created_at FROM created",
                    Created::of,
                    args.toArray());
        }
        created.ifPresent(c -> events.tell(tx, t -> t.created(n.cause(), n.scheduledAt(), c.at())));
        return created.map(Created::id);
    }

    private record Created(long id, Instant at) {
        static Created of(Tx.Row r) throws SQLException {
            return new Created(r.lng("id"), r.instant("created_at"));
        }
    }

    private static Instant createdAt(Tx tx, long id) {
        return tx.queryOne("SELECT created_at FROM ax_instance WHERE id = ?", r -> r.instant("created_at"), id)
                .orElseThrow();
    }

    /**
     * Applies one state change if the run is still where the caller saw it. Returns false
     * when it is not (another node or a report got there first: a lost race, which is normal);
     * throws if the move is not in the transition table or more than one row changed.
     */
    public boolean move(Tx tx, Move m) {
        Transitions.check(m.from, m.to);
        Update u = update(tx, m);
        String sql = u.sql();
        List<Object> args = new ArrayList<>(u.args());
        if (m.event != null && tx.dialect().writesInWith()) {
            // The change and its event in one round trip: the event is written for the row moved, or not at all.
            args.addAll(
                    Arrays.asList(m.event, m.from, m.to, m.actor, m.nodeId, m.message, EventStore.dataJson(m.data)));
            int n = tx.update(
                    "WITH moved AS (" + sql + " RETURNING id, task_id, task_name, attempt) "
                            + EventStore.insertFrom("moved"),
                    args.toArray());
            if (n > 1) {
                throw new StoreException("a state change of run " + m.instanceId + " touched " + n + " rows");
            }
            return moved(tx, m, n == 1);
        }
        int n = tx.update(sql, args.toArray());
        if (n > 1) {
            throw new StoreException("a state change of run " + m.instanceId + " touched " + n + " rows");
        }
        if (n == 1 && m.event != null) {
            events.appendForRun(tx, m.instanceId, m.event, m.from, m.to, m.actor, m.nodeId, m.message, m.data);
        }
        return moved(tx, m, n == 1);
    }

    /** A move's conditional UPDATE, its event aside: one text for every move that sets the same columns. */
    record Update(String sql, List<Object> args) {}

    static Update update(Tx tx, Move m) {
        Update set = set(tx, m);
        StringBuilder sql = new StringBuilder(set.sql());
        List<Object> args = new ArrayList<>(set.args());
        sql.append(" WHERE id = ? AND state = ?");
        args.add(m.instanceId);
        args.add(m.from);
        if (m.fenceAttempt != null) {
            sql.append(" AND attempt = ? AND executor_id = ?");
            args.add(m.fenceAttempt);
            args.add(m.fenceExecutor);
        }
        return new Update(sql.toString(), args);
    }

    /**
     * A move's UPDATE up to its WHERE: what it sets, the same text and values for every move that sets the same (a
     * group of successes, which {@link ReturnlessBatches} moves by one statement).
     */
    static Update set(Tx tx, Move m) {
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
        return new Update(sql.toString(), args);
    }

    private boolean moved(Tx tx, Move m, boolean moved) {
        if (moved && m.to == RunState.SUCCESS) {
            events.tell(tx, t -> t.succeeded(1));
        }
        return moved;
    }

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
    public Map<RunState, Long> countInStates(Tx tx, Collection<RunState> states) {
        Map<RunState, Long> counts = new EnumMap<>(RunState.class);
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
            counts.put(r.enumOf(RunState.class, "state"), r.lng("n"));
            return null;
        });
        return counts;
    }

    /** True if some run of the task waits for a concurrency slot (BLOCKED). */
    public boolean hasWaiting(Tx tx, long taskId) {
        return tx.queryOne(
                        "SELECT 1 AS one FROM ax_instance WHERE task_id = ? AND state = 'BLOCKED' LIMIT 1",
                        r -> 1,
                        taskId)
                .isPresent();
    }

    /** The runs of a task in the given states, oldest first. */
    public List<RunRow> ofTaskInStates(Tx tx, long taskId, List<RunState> states, int limit) {
        String in = String.join(", ", Collections.nCopies(states.size(), "?"));
        List<Object> args = new ArrayList<>();
        args.add(taskId);
        args.addAll(states);
        args.add(limit);
        return tx.query(
                "SELECT " + COLUMNS + " FROM ax_instance WHERE task_id = ? AND state IN (" + in
                        + ") ORDER BY id LIMIT ?",
                RunStore::map,
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
    public List<RunRow> expiredApprovals(Tx tx, int limit) {
        return tx.query(
                "SELECT " + COLUMNS + " FROM ax_instance WHERE state = 'WAITING_APPROVAL'"
                        + " AND approval_deadline < CURRENT_TIMESTAMP ORDER BY approval_deadline LIMIT ?",
                RunStore::map,
                limit);
    }

    /** The preview run of an approval request, if it has one. */
    public Optional<RunRow> previewOf(Tx tx, long instanceId) {
        return tx
                .query(
                        "SELECT " + COLUMNS
                                + " FROM ax_instance WHERE parent_id = ? AND cause = 'PREVIEW' ORDER BY id DESC",
                        RunStore::map,
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
    public Optional<RunRow> doneOrActiveWithKey(Tx tx, long taskId, String key) {
        return tx
                .query(
                        "SELECT " + COLUMNS + " FROM ax_instance WHERE task_id = ? AND request_id = ?"
                                + " AND state IN ('SUCCESS', 'READY', 'RUNNING', 'RETRYING', 'WAITING_APPROVAL', 'BLOCKED', 'WAITING_DEPENDENCY') ORDER BY id LIMIT 1",
                        RunStore::map,
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

    /** RETRYING runs whose next attempt is due. */
    public List<RunRow> lockDueRetries(Tx tx, int limit) {
        return tx.query(
                "SELECT " + COLUMNS + " FROM ax_instance WHERE state = 'RETRYING' AND ready_at <= CURRENT_TIMESTAMP"
                        + " ORDER BY ready_at LIMIT ?" + tx.dialect().forUpdateSkipLocked(),
                RunStore::map,
                limit);
    }

    public Optional<RunRow> find(Tx tx, long id) {
        return tx.queryOne("SELECT " + COLUMNS + " FROM ax_instance WHERE id = ?", RunStore::map, id);
    }

    /** The runs of {@code ids} that exist, in id order, in one statement. */
    public List<RunRow> findAll(Tx tx, Collection<Long> ids) {
        if (ids.isEmpty()) {
            return List.of();
        }
        return tx.query(
                "SELECT " + COLUMNS + " FROM ax_instance WHERE id IN ("
                        + String.join(", ", Collections.nCopies(ids.size(), "?")) + ") ORDER BY id",
                RunStore::map,
                ids.toArray());
    }

    public Optional<RunRow> findBySlot(Tx tx, long taskId, String fireKey) {
        return tx.queryOne(
                "SELECT " + COLUMNS + " FROM ax_instance WHERE task_id = ? AND fire_key = ?",
                RunStore::map,
                taskId,
                fireKey);
    }

    /** Runs newest first, filtered; {@code beforeId} is the page cursor. */
    public List<RunRow> list(Tx tx, RunFilter f, long beforeId, int limit) {
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
        return tx.query(sql.toString(), RunStore::map, args.toArray());
    }

    /** Filters of {@link #list}; null means any. */
    public record RunFilter(String taskName, RunState state, Instant scheduledFrom, Instant scheduledTo) {
        public static final RunFilter ALL = new RunFilter(null, null, null, null);
    }

    /** Cancels the READY/RETRYING/BLOCKED runs of a task (it was deleted): nothing waits for a recipe that is gone. */
    public int cancelWaiting(Tx tx, long taskId, String actor, String nodeId, String reason) {
        List<RunRow> waiting = tx.query(
                "SELECT " + COLUMNS + " FROM ax_instance WHERE task_id = ?"
                        + " AND state IN ('READY', 'RETRYING', 'BLOCKED', 'WAITING_APPROVAL', 'WAITING_DEPENDENCY') FOR UPDATE",
                RunStore::map,
                taskId);
        int n = 0;
        for (RunRow row : waiting) {
            if (move(
                    tx,
                    Move.of(row.id(), row.state(), RunState.CANCELED)
                            .finished()
                            .event(EventType.CANCELED, actor, nodeId, reason))) {
                n++;
            }
        }
        return n;
    }

    /** The scheduled runs of a task fired ahead of their slot that are not due yet (READY, {@code ready_at} ahead), locked. */
    public List<RunRow> lockFiredAhead(Tx tx, long taskId) {
        return tx.query(
                "SELECT " + COLUMNS + " FROM ax_instance WHERE task_id = ? AND state = 'READY'"
                        + " AND ready_at > CURRENT_TIMESTAMP AND cause IN ('CRON', 'INTERVAL') ORDER BY id FOR UPDATE",
                RunStore::map,
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

    static RunRow map(Tx.Row r) throws SQLException {
        String params = r.str("params");
        return new RunRow(
                r.lng("id"),
                r.lng("task_id"),
                r.str("task_name"),
                r.integer("task_version"),
                r.enumOf(Cause.class, "cause"),
                r.str("fire_key"),
                r.instant("scheduled_at"),
                params == null ? Map.of() : Json.readMap(params),
                r.enumOf(RunState.class, "state"),
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
