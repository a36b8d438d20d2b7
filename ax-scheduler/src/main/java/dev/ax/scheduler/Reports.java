package dev.ax.scheduler;

import dev.ax.domain.protocol.ApprovalAsk;
import dev.ax.domain.protocol.Completion;
import dev.ax.domain.protocol.Heartbeat;
import dev.ax.domain.protocol.HeartbeatAnswer;
import dev.ax.domain.protocol.LogChunk;
import dev.ax.domain.protocol.ReportAnswer;
import dev.ax.domain.protocol.RunRef;
import dev.ax.domain.protocol.RunStateQuery;
import dev.ax.domain.protocol.Started;
import dev.ax.domain.run.EventType;
import dev.ax.domain.run.FailureKind;
import dev.ax.domain.run.RunState;
import dev.ax.domain.secret.SecretMask;
import dev.ax.store.LeaseStore;
import dev.ax.store.LogStore;
import dev.ax.store.RunRow;
import dev.ax.store.Store;
import dev.ax.store.Tx;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What executors and services report about the runs they hold: heartbeats, starts, output,
 * outcomes, a handler's request for approval and its question about a run's state. Every report
 * is fenced by the attempt holding the lease; a refused one is recorded as REPORT_REFUSED. Output
 * and messages are masked here, before any path stores them.
 */
final class Reports {
    private final NodeContext ctx;
    private final Outcomes outcomes;
    private final Approvals approvals;
    private final Shards shards;
    private final GroupedReports grouped;

    Reports(NodeContext ctx, Outcomes outcomes, Approvals approvals, Shards shards) {
        this.ctx = ctx;
        this.outcomes = outcomes;
        this.approvals = approvals;
        this.shards = shards;
        this.grouped = new GroupedReports(ctx, outcomes);
    }

    /** Renews the leases the executor still holds; tells it which runs to abandon. */
    HeartbeatAnswer heartbeat(Heartbeat h) {
        Store store = ctx.store();
        return store.tx(tx -> {
            store.executors().seen(tx, h.executorId());
            LeaseStore.Renewal plain = store.leases()
                    .renew(
                            tx,
                            h.executorId(),
                            Shards.plain(h.held()),
                            ctx.config().leaseMillis());
            List<RunRef> sharded = Shards.sharded(h.held());
            List<RunRef> lost = new ArrayList<>(plain.lost());
            List<RunRef> lostShards = shards.renewLeases(tx, h.executorId(), sharded);
            lost.addAll(lostShards);
            // Only what was renewed: a run whose row was busy keeps the lease it had, and the executor counts from
            // then.
            List<RunRef> renewed = new ArrayList<>(plain.renewed());
            sharded.stream().filter(ref -> !lostShards.contains(ref)).forEach(renewed::add);
            return new HeartbeatAnswer(renewed, lost);
        });
    }

    ReportAnswer started(Started s) {
        if (s.run().sharded()) {
            return shards.started(s);
        }
        ReportAnswer answer = grouped.started(s);
        if (answer != null) {
            return answer;
        }
        Store store = ctx.store();
        return store.tx(tx -> {
            if (!store.leases().recordStarted(tx, s.run(), s.executorId(), s.pid(), ctx.nodeId())) {
                return refuse(tx, s.run(), s.executorId(), "started");
            }
            return ReportAnswer.OK;
        });
    }

    ReportAnswer log(LogChunk raw) {
        LogChunk chunk = masked(raw);
        if (chunk.run().sharded()) {
            return shards.log(chunk);
        }
        ReportAnswer answer = grouped.logged(chunk);
        if (answer != null) {
            return answer;
        }
        Store store = ctx.store();
        return store.tx(tx -> {
            if (!store.leases().holds(tx, chunk.run(), chunk.executorId())) {
                return ReportAnswer.refused("attempt " + chunk.run().attempt() + " of run "
                        + chunk.run().instanceId() + " is not held by executor " + chunk.executorId());
            }
            store.logs().append(tx, chunk.run(), chunk.stream(), chunk.lines());
            return ReportAnswer.OK;
        });
    }

    ReportAnswer complete(Completion raw) {
        Completion c = masked(raw);
        if (c.run().sharded()) {
            return shards.complete(c);
        }
        if (c.success()) {
            // Most reports are successes of runs whose end hands nothing on: committed in groups.
            ReportAnswer answer = grouped.succeeded(c);
            if (answer != null) {
                return answer;
            }
        }
        Store store = ctx.store();
        ReportAnswer answer = store.tx(tx -> {
            RunRow run = store.runs().find(tx, c.run().instanceId()).orElse(null);
            if (run == null) {
                return ReportAnswer.refused("no run " + c.run().instanceId());
            }
            if (run.attempt() != c.run().attempt()) {
                return refuse(tx, c.run(), c.executorId(), "completion");
            }
            // A start the completion carries is recorded first, fenced like a "started" report.
            if (c.pid() != null && !store.leases().recordStarted(tx, c.run(), c.executorId(), c.pid(), ctx.nodeId())) {
                return refuse(tx, c.run(), c.executorId(), "completion");
            }
            boolean applied = c.success()
                    ? outcomes.succeed(
                            tx, run, c.executorId(), c.exitCode(), c.message(), Dispatcher.actor(c.executorId()))
                    : outcomes.fail(
                            tx,
                            run,
                            c.executorId(),
                            c.failureKind() == null ? FailureKind.EXIT_CODE : c.failureKind(),
                            c.exitCode(),
                            c.message(),
                            Dispatcher.actor(c.executorId()));
            if (!applied) {
                return refuse(tx, c.run(), c.executorId(), "completion");
            }
            store.logs().appendAll(tx, tail(c));
            return ReportAnswer.OK;
        });
        return answer;
    }

    /** The output a completion carries, as log chunks of the attempt it completes (whatever runs its chunks name). */
    static List<LogStore.Chunk> tail(Completion c) {
        return c.tail().stream()
                .map(chunk -> new LogStore.Chunk(c.run(), chunk.stream(), chunk.lines()))
                .toList();
    }

    /** A running handler asks for a person's approval (fenced: only the executor holding the run may). */
    ReportAnswer requestApproval(ApprovalAsk ask) {
        boolean holds = ctx.store().tx(tx -> ctx.store().leases().holds(tx, ask.run(), ask.executorId()));
        if (!holds) {
            return ReportAnswer.refused("executor " + ask.executorId() + " does not hold attempt "
                    + ask.run().attempt() + " of run " + ask.run().instanceId());
        }
        approvals.requestMidRun(ask.run().instanceId(), Dispatcher.actor(ask.executorId()), ask.summary());
        return ReportAnswer.OK;
    }

    /** The state of a run the executor holds, in {@code reason}; refused when another attempt or executor has it. */
    ReportAnswer runState(RunStateQuery q) {
        if (q.run().sharded()) {
            return shards.runState(q.run(), q.executorId());
        }
        return ctx.store()
                .tx(tx -> ctx.store()
                        .runs()
                        .find(tx, q.run().instanceId())
                        .filter(r -> r.attempt() == q.run().attempt()
                                && q.executorId().equals(r.executorId()))
                        .map(r -> new ReportAnswer(true, r.state().name()))
                        .orElse(ReportAnswer.refused("executor " + q.executorId() + " does not hold attempt "
                                + q.run().attempt() + " of run " + q.run().instanceId())));
    }

    /**
     * An async HTTP action's service reports the outcome itself ({@code POST /api/runs/{id}/complete}).
     * Fenced by the attempt: a report for an attempt that is over (retried, timed out, terminated) is refused.
     */
    ReportAnswer completeFromService(
            long instanceId, int attempt, boolean success, Integer status, String message, String actor) {
        return completeRunFromService(
                instanceId, attempt, success, status, ctx.secrets().mask().apply(message), actor);
    }

    private ReportAnswer completeRunFromService(
            long instanceId, int attempt, boolean success, Integer status, String message, String actor) {
        Store store = ctx.store();
        return store.tx(tx -> {
            RunRow run =
                    store.runs().find(tx, instanceId).orElseThrow(() -> new NotFoundException("no run " + instanceId));
            if (run.attempt() != attempt || run.state() != RunState.RUNNING) {
                return refuse(tx, new RunRef(instanceId, attempt), actor, "completion");
            }
            boolean applied = success
                    ? outcomes.succeed(
                            tx,
                            run,
                            run.executorId(),
                            status,
                            message == null ? "reported by the service" : message,
                            actor)
                    : outcomes.fail(
                            tx,
                            run,
                            run.executorId(),
                            status == null ? FailureKind.EXIT_CODE : FailureKind.HTTP_STATUS,
                            status,
                            message,
                            actor);
            return applied ? ReportAnswer.OK : refuse(tx, new RunRef(instanceId, attempt), actor, "completion");
        });
    }

    /** {@link #completeFromService} for one shard of a sharded run ({@code shard} null: the run itself). */
    ReportAnswer completeFromService(
            long instanceId,
            Integer shard,
            int attempt,
            boolean success,
            Integer status,
            String message,
            String actor) {
        String masked = ctx.secrets().mask().apply(message);
        return shard == null
                ? completeRunFromService(instanceId, attempt, success, status, masked, actor)
                : shards.completeFromService(instanceId, shard, attempt, success, status, masked, actor);
    }

    /*
     * Output and messages from executors and services come in by these reports only, so they are masked here, before
     * any path stores them (one run's chunk alone, a group's, a shard's, a completion's tail): an executor masks what it
     * sends already, and this keeps what an older executor, an SDK worker or a service sends from reaching the database.
     */

    private LogChunk masked(LogChunk chunk) {
        SecretMask mask = ctx.secrets().mask();
        return mask.isEmpty()
                ? chunk
                : new LogChunk(chunk.executorId(), chunk.run(), chunk.stream(), mask.apply(chunk.lines()));
    }

    private Completion masked(Completion c) {
        SecretMask mask = ctx.secrets().mask();
        if (mask.isEmpty()) {
            return c;
        }
        return new Completion(
                c.executorId(),
                c.run(),
                c.success(),
                c.failureKind(),
                c.exitCode(),
                mask.apply(c.message()),
                c.pid(),
                c.tail().stream().map(this::masked).toList());
    }

    /** A report from an executor that does not hold the attempt: refused, and the refusal is on record. */
    private ReportAnswer refuse(Tx tx, RunRef ref, String executorId, String what) {
        String reason = what + " for attempt " + ref.attempt() + " of run " + ref.instanceId() + " refused: "
                + executorId + " does not hold its lease (the attempt is over)";
        if (ctx.store().runs().find(tx, ref.instanceId()).isPresent()) {
            ctx.store()
                    .events()
                    .appendForAttempt(
                            tx,
                            ref.instanceId(),
                            ref.attempt(),
                            EventType.REPORT_REFUSED,
                            Dispatcher.actor(executorId),
                            ctx.nodeId(),
                            reason,
                            Map.of("attempt", ref.attempt()));
        }
        return ReportAnswer.refused(reason);
    }
}
