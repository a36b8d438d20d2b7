package dev.ax.store;

import dev.ax.domain.run.RunState;
import dev.ax.domain.run.Transitions;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * Claiming READY runs for executors: the one read of the READY index for several claimants, the
 * move of each run to RUNNING with a new attempt (the fencing token) and a lease, and its CLAIMED
 * event; one statement on PostgreSQL, elsewhere two (H2, whose claims the dialect serialises in
 * the JVM, and MariaDB, which has no UPDATE ... RETURNING). Also the looks a waiting poll and a group's capacity need.
 */
public final class ClaimStore {
    private final EventStore events;

    public ClaimStore(EventStore events) {
        this.events = events;
    }

    /**
     * Claims up to {@code max} READY runs of the given groups that are due by the database's
     * clock: each becomes RUNNING with a new attempt number (the fencing token) and a lease held by
     * {@code executorId}. SKIP LOCKED lets concurrent claimers on other nodes take other rows
     * instead of waiting. A run whose task version names {@code environment} labels is claimed only
     * by an executor carrying all of them ({@link dev.ax.domain.policy.EnvironmentMatch}); runs
     * without labels go to any executor. With {@code dueBy}, also runs not due yet whose
     * {@code ready_at} is at or before it, for a dispatcher that hands them out at their slot
     * ({@link #claimEach}; null: only runs due now).
     */
    public List<RunRow> claim(
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
     * that moves every run to its executor (no CLAIMED events: {@link RoutineEvents}). Claims that read the index
     * one after the other in a transaction each stepped over the runs the ones before had locked,
     * and paid again for every entry the index still holds of runs claimed since the last vacuum.
     * Returns each claimant's runs, in the order given, oldest first.
     *
     * <p>With {@code dueBy}, also runs fired ahead whose slot ({@code ready_at}) is at or before it, a time the
     * database gave ({@link #nextReady}); null takes only runs due now. The runs of such a claim get {@code dueBy} as
     * their {@code started_at} (or now, if it has passed): the dispatcher hands them out then, not before. Their
     * leases count from the claim.
     */
    public List<List<RunRow>> claimEach(
            Tx tx,
            List<Claimant> claimants,
            List<String> groups,
            List<String> labels,
            long leaseMillis,
            String nodeId,
            Instant dueBy) {
        int total = claimants.stream().mapToInt(c -> Math.max(0, c.max())).sum();
        if (groups.isEmpty() || total <= 0) {
            return claimants.stream().<List<RunRow>>map(c -> List.of()).toList();
        }
        Transitions.check(RunState.READY, RunState.RUNNING);
        String in = String.join(", ", Collections.nCopies(groups.size(), "?"));
        List<Object> pick = new ArrayList<>(groups);
        pick.addAll(labels);
        if (dueBy != null) {
            pick.add(dueBy);
        }
        pick.add(total);
        List<Long> ids = new ArrayList<>();
        List<Long> again = new ArrayList<>();
        tx.query(
                "SELECT id, attempt FROM ax_instance WHERE state = 'READY' AND executor_group IN (" + in + ")"
                        + " AND ready_at <= " + (dueBy == null ? "CURRENT_TIMESTAMP" : "?") + lacksNoLabel(labels)
                        + " ORDER BY ready_at, id LIMIT ?"
                        + tx.dialect().forUpdateSkipLocked(),
                r -> {
                    ids.add(r.lng("id"));
                    if (r.integer("attempt") > 0) {
                        again.add(r.lng("id"));
                    }
                    return null;
                },
                pick.toArray());
        // A run's next attempt overwrites the columns that hold its last claim and start: those become events first.
        events.keepSteps(tx, again);
        // The oldest runs to the first claimant, each taking up to its max.
        List<List<Long>> shares = new ArrayList<>(claimants.size());
        int at = 0;
        for (Claimant c : claimants) {
            int end = Math.min(ids.size(), at + Math.max(0, c.max()));
            shares.add(ids.subList(at, end));
            at = end;
        }
        Dialect d = tx.dialect();
        String set = "state = 'RUNNING', attempt = attempt + 1, lease_expires_at = "
                + d.plusMillis("CURRENT_TIMESTAMP")
                + ", started_at = "
                + (dueBy == null ? "CURRENT_TIMESTAMP" : "GREATEST(CURRENT_TIMESTAMP, " + d.castTimestamp("?") + ")")
                + ", claim_node = " + d.castVarchar("?")
                + ", pid = NULL, pid_at = NULL, start_node = NULL, end_node = NULL,"
                + " exit_code = NULL, failure_kind = NULL, message = NULL, updated_at = CURRENT_TIMESTAMP";
        List<List<RunRow>> out;
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
            claimArgs.add(nodeId);
            // The moves and the rows as claimed, in one round trip. No CLAIMED event: the claim is a routine step the
            // run's own columns hold (RoutineEvents).
            List<RunRow> rows = tx.query(
                    "WITH v (run_id, claimant) AS (SELECT * FROM unnest(CAST(? AS BIGINT[]), CAST(? AS VARCHAR[])))"
                            + " UPDATE ax_instance SET " + set
                            + ", executor_id = v.claimant FROM v WHERE ax_instance.id = v.run_id RETURNING "
                            + CLAIMED_COLUMNS,
                    RunStore::map,
                    claimArgs.toArray());
            if (rows.size() != ids.size()) {
                throw new StoreException("claimed " + rows.size() + " of " + ids.size() + " locked instances");
            }
            Map<Long, RunRow> byId = rows.stream().collect(Collectors.toMap(RunRow::id, r -> r));
            out = shares.stream()
                    .map(share -> share.stream().map(byId::get).toList())
                    .toList();
        } else if (ids.isEmpty()) {
            out = claimants.stream().<List<RunRow>>map(c -> List.of()).toList();
        } else {
            // Elsewhere two statements whatever the claimants: one update that gives each run its claimant's
            // executor, one read of the rows as claimed.
            StringBuilder executorOf = new StringBuilder("CASE id");
            List<Object> args = new ArrayList<>();
            args.add(leaseMillis);
            if (dueBy != null) {
                args.add(dueBy);
            }
            args.add(nodeId);
            for (int i = 0; i < claimants.size(); i++) {
                for (Long id : shares.get(i)) {
                    executorOf.append(" WHEN ? THEN ").append(d.castVarchar("?"));
                    args.add(id);
                    args.add(claimants.get(i).executorId());
                }
            }
            String idList = String.join(", ", Collections.nCopies(ids.size(), "?"));
            args.addAll(ids);
            int n = tx.update(
                    "UPDATE ax_instance SET " + set + ", executor_id = " + executorOf + " END WHERE id IN (" + idList
                            + ")",
                    args.toArray());
            if (n != ids.size()) {
                throw new StoreException("claimed " + n + " of " + ids.size() + " locked instances");
            }
            Map<Long, RunRow> byId = tx
                    .query(
                            "SELECT " + RunStore.COLUMNS + " FROM ax_instance WHERE id IN (" + idList + ")",
                            RunStore::map,
                            ids.toArray())
                    .stream()
                    .collect(Collectors.toMap(RunRow::id, r -> r));
            out = shares.stream()
                    .map(share -> share.stream().map(byId::get).toList())
                    .toList();
        }
        List<RunRow> claimed = out.stream().flatMap(List::stream).toList();
        if (!claimed.isEmpty()) {
            events.tell(
                    tx, t -> claimed.forEach(r -> t.claimed(r.cause(), r.attempt(), r.scheduledAt(), r.startedAt())));
        }
        return out;
    }

    /** {@link RunStore#COLUMNS}, each named with its table: the claim's update joins a row set that names some of them too. */
    private static final String CLAIMED_COLUMNS = Arrays.stream(RunStore.COLUMNS.split(",\\s*"))
            .map(c -> "ax_instance." + c)
            .collect(Collectors.joining(", "));

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
                        + in + ")" + lacksNoLabel(labels) + " ORDER BY ready_at LIMIT 1",
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
}
