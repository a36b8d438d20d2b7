package dev.ax.scheduler;

import dev.ax.domain.protocol.ApprovalAsk;
import dev.ax.domain.protocol.Completion;
import dev.ax.domain.protocol.Heartbeat;
import dev.ax.domain.protocol.HeartbeatAnswer;
import dev.ax.domain.protocol.LogChunk;
import dev.ax.domain.protocol.Poll;
import dev.ax.domain.protocol.Register;
import dev.ax.domain.protocol.RegisterAnswer;
import dev.ax.domain.protocol.ReportAnswer;
import dev.ax.domain.protocol.RunRef;
import dev.ax.domain.protocol.RunStateQuery;
import dev.ax.domain.protocol.Started;
import dev.ax.domain.protocol.WorkItem;
import dev.ax.domain.run.FailureKind;
import dev.ax.store.RunRow;
import dev.ax.store.Store;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.LongSupplier;

/**
 * The server side of the executor protocol ({@code dev.ax.domain.protocol}). The same object
 * serves remote executors through the API and the in-process executor by direct calls. It owns
 * registration and the long poll, and hands the rest to its parts: {@link Claims} (what a poll
 * takes), {@link ExecutorSightings} (what this node remembers of executors) and {@link Reports}
 * (what executors say about their runs; every report is fenced by the attempt holding the lease).
 */
public final class Dispatcher {
    public static final int MAX_POLL = 100;
    public static final long MAX_WAIT_MILLIS = 60_000;

    private final NodeContext ctx;
    private final Outcomes outcomes;
    private final Shards shards;
    private final Claims claims;
    private final ExecutorSightings sightings;
    private final Reports reports;

    Dispatcher(NodeContext ctx, Outcomes outcomes, Approvals approvals, Shards shards) {
        this.ctx = ctx;
        this.outcomes = outcomes;
        this.shards = shards;
        this.claims = new Claims(ctx, outcomes, shards);
        this.sightings = new ExecutorSightings(ctx, claims);
        this.reports = new Reports(ctx, outcomes, approvals, shards);
    }

    /** The actor of what an executor reports, on the events it causes. */
    static String actor(String executorId) {
        return "executor:" + executorId;
    }

    /**
     * An executor starts (or restarts). Runs the server thinks it holds but the executor no
     * longer has are failed as EXECUTOR_LOST at once (the retry policy decides); runs it reports
     * that the server no longer assigns to it are to be abandoned.
     */
    public RegisterAnswer register(Register r) {
        refuseWhileDraining();
        Store store = ctx.store();
        List<RunRow> lostRuns = new ArrayList<>();
        List<RunRef> abandon = store.tx(tx -> {
            store.executors().register(tx, r.executorId(), r.session(), r.groups(), r.host(), r.pid(), r.version());
            store.executors().setLabels(tx, r.executorId(), r.labels());
            Set<RunRef> reported = new HashSet<>(r.held());
            for (RunRow run : store.leases().heldBy(tx, r.executorId())) {
                if (!reported.contains(new RunRef(run.id(), run.attempt()))) {
                    lostRuns.add(run);
                }
            }
            List<RunRef> lost = new ArrayList<>(store.leases()
                    .renewLeases(
                            tx,
                            r.executorId(),
                            Shards.plain(r.held()),
                            ctx.config().leaseMillis()));
            lost.addAll(shards.renewLeases(tx, r.executorId(), Shards.sharded(r.held())));
            return lost;
        });
        // One transaction per lost run: failing one locks its task, and no transaction takes a
        // second task lock (the one lock order is a task, then its runs).
        for (RunRow run : lostRuns) {
            store.tx(tx -> outcomes.fail(
                    tx,
                    run,
                    r.executorId(),
                    FailureKind.EXECUTOR_LOST,
                    null,
                    "executor " + r.executorId() + " restarted without this run",
                    "server"));
        }
        sightings.forget(r.executorId()); // its labels may have changed
        shards.registered(r.executorId(), r.held());
        ctx.signals().workAvailable();
        return new RegisterAnswer(
                ctx.config().leaseMillis(),
                ctx.config().heartbeatMillis(),
                abandon,
                lostRuns.stream()
                        .map(run -> new RunRef(run.id(), run.attempt()))
                        .toList());
    }

    /**
     * Claims work for the executor, waiting up to {@code waitMillis} for some to become due.
     *
     * <p>Claims are made only at the start of a request. If work appears while the request waits,
     * the answer is empty and the executor polls again at once: a client that died while waiting
     * (SIGKILL, a cut network) is never handed a run it cannot receive, which would otherwise
     * burn an attempt on a lease nobody holds.
     *
     * <p>Runs fired ahead of their slot are claimed up to {@code claimAhead} before it, by a poll that
     * starts then and whose wait lasts past the slot; the answer is held back until the slot by the
     * database's clock, so their bodies start on it rather than after a claim's transaction. A wait for
     * such runs ends {@code claimAhead} before their slot, so that the executor's next poll claims them.
     */
    public List<WorkItem> poll(Poll p) throws InterruptedException {
        refuseWhileDraining();
        int max = Math.clamp(p.max(), 0, MAX_POLL);
        long waitNanos = Duration.ofMillis(Math.clamp(p.waitMillis(), 0, MAX_WAIT_MILLIS))
                .toNanos();
        long start = System.nanoTime();
        List<String> labels = sightings.seenAndLabels(p.executorId());
        // A poll holds runs claimed ahead within its own wait: a wait shorter than claimAhead claims less ahead.
        long ahead = Math.min(ctx.config().claimAhead().toNanos(), waitNanos);
        // The executor's last poll ended when runs fired ahead became claimable: this one claims them at once. A claim
        // of what is due now first would find nothing (they are not due yet), and on MariaDB each claim walks past the
        // index entries of every run claimed since InnoDB last purged.
        Claims.Due expected = claims.takeExpected(p.executorId());
        if (expected != null && max > 0 && expected.nanosLeft() > 0 && expected.nanosLeft() <= ahead) {
            Optional<List<WorkItem>> held = claims.claimAhead(p.executorId(), p.groups(), labels, max, expected);
            if (held.isPresent()) {
                return held.get();
            }
        }
        List<WorkItem> items = claims.claim(p.executorId(), p.groups(), labels, max);
        if (!items.isEmpty() || max == 0) {
            return items;
        }
        Claims.Due due = claims.due(p, labels);
        if (due != null
                && !due.now()
                && due.nanosLeft() <= ahead
                && due.nanosLeft() <= waitNanos - (System.nanoTime() - start)) {
            Optional<List<WorkItem>> held = claims.claimAhead(p.executorId(), p.groups(), labels, max, due);
            if (held.isPresent()) {
                return held.get();
            }
            // Another executor took them, or holds them locked while it claims: this poll waits for the slot itself.
            ahead = 0;
            due = claims.due(p, labels);
        }
        long recheck = ctx.config().pollRecheck().toNanos();
        while (true) {
            long generation = ctx.signals().workGeneration();
            long left = waitNanos - (System.nanoTime() - start);
            if (left <= 0 || ctx.signals().isClosed() || ctx.signals().isDraining()) {
                return List.of();
            }
            long wait = Math.min(left, recheck);
            // A run fired ahead of its slot is READY but not due yet: the wait ends when the next poll may claim it.
            long untilClaimable = due == null || due.now() ? -1 : Math.max(0, due.nanosLeft() - ahead);
            boolean untilItIsClaimable = untilClaimable >= 0 && untilClaimable <= wait;
            if (untilItIsClaimable) {
                wait = untilClaimable;
            }
            // Woken at once by work created on this node; other nodes' work is found by the recheck.
            ctx.signals().awaitWork(generation, Duration.ofNanos(wait));
            if (untilItIsClaimable && ctx.signals().workGeneration() == generation) {
                // Slept until the run fired ahead may be claimed (measured from the database's clock before the sleep,
                // so
                // not before): no need to ask the database again, the executor polls again at once and claims it.
                claims.expect(p.executorId(), due);
                return List.of();
            }
            due = claims.due(p, labels);
            if (due != null && due.now()) {
                return List.of();
            }
        }
    }

    /** A draining node takes no executor on and hands out no work; reports of runs already out are still taken. */
    private void refuseWhileDraining() {
        if (ctx.signals().isDraining()) {
            throw new DrainingException(ctx.nodeId());
        }
    }

    /** Renews the leases the executor still holds; tells it which runs to abandon. */
    public HeartbeatAnswer heartbeat(Heartbeat h) {
        return reports.heartbeat(h);
    }

    public ReportAnswer started(Started s) {
        return reports.started(s);
    }

    public ReportAnswer log(LogChunk chunk) {
        return reports.log(chunk);
    }

    public ReportAnswer complete(Completion c) {
        return reports.complete(c);
    }

    /** A running handler asks for a person's approval (fenced: only the executor holding the run may). */
    public ReportAnswer requestApproval(ApprovalAsk ask) {
        return reports.requestApproval(ask);
    }

    /** The state of a run the executor holds, in {@code reason}; refused when another attempt or executor has it. */
    public ReportAnswer runState(RunStateQuery q) {
        return reports.runState(q);
    }

    /**
     * An async HTTP action's service reports the outcome itself ({@code POST /api/runs/{id}/complete}).
     * Fenced by the attempt: a report for an attempt that is over (retried, timed out, terminated) is refused.
     */
    public ReportAnswer completeFromService(
            long instanceId, int attempt, boolean success, Integer status, String message, String actor) {
        return reports.completeFromService(instanceId, attempt, success, status, message, actor);
    }

    /** {@link #completeFromService} for one shard of a sharded run ({@code shard} null: the run itself). */
    public ReportAnswer completeFromService(
            long instanceId,
            Integer shard,
            int attempt,
            boolean success,
            Integer status,
            String message,
            String actor) {
        return reports.completeFromService(instanceId, shard, attempt, success, status, message, actor);
    }

    /** Executors this node remembers (polled within {@code executorAlive}, roughly); for tests and diagnostics. */
    int remembered() {
        return sightings.remembered();
    }

    /** Replaces the time source of what this node remembers of executors (tests: time moved by hand). */
    void useTicker(LongSupplier nanos) {
        sightings.useTicker(nanos);
    }

    /** Fails runs whose executor stopped heartbeating (invariant 5); returns how many. */
    public int reapExpiredLeases(int limit) {
        Store store = ctx.store();
        int n = 0;
        for (RunRow run : store.tx(tx -> store.leases().expiredLeases(tx, limit))) {
            // One transaction per run: each locks its task first; a run another node reaped meanwhile is fenced out.
            if (store.tx(tx -> outcomes.fail(
                    tx,
                    run,
                    run.executorId(),
                    FailureKind.EXECUTOR_LOST,
                    null,
                    "lease of executor " + run.executorId() + " expired at " + run.leaseExpiresAt() + " (no heartbeat)",
                    "scheduler"))) {
                n++;
            }
        }
        return n + shards.reapExpiredLeases(limit);
    }
}
