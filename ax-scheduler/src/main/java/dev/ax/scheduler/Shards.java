package dev.ax.scheduler;

import dev.ax.domain.policy.EnvironmentMatch;
import dev.ax.domain.policy.ShardSpread;
import dev.ax.domain.protocol.Completion;
import dev.ax.domain.protocol.LogChunk;
import dev.ax.domain.protocol.ReportAnswer;
import dev.ax.domain.protocol.RunRef;
import dev.ax.domain.protocol.Started;
import dev.ax.domain.protocol.WorkItem;
import dev.ax.domain.run.Cause;
import dev.ax.domain.run.EventType;
import dev.ax.domain.run.FailureKind;
import dev.ax.domain.run.RunState;
import dev.ax.domain.run.ShardState;
import dev.ax.domain.task.Sharding;
import dev.ax.domain.task.TaskDefinition;
import dev.ax.store.RunRow;
import dev.ax.store.ShardRow;
import dev.ax.store.ShardStore;
import dev.ax.store.Store;
import dev.ax.store.Tx;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Sharded runs ({@code policy.sharding}), the server side.
 *
 * <p>A run of a sharded task is claimed like any other (READY → RUNNING, attempt 1, so the
 * concurrency gate, approvals and the trigger chain work unchanged). In the claim transaction it
 * <b>fans out</b>: N shard rows become READY and the run lets go of its own lease (executor and
 * lease cleared), so from then on the run is RUNNING until its shards decide how it ends and is
 * never touched by the lease reaper or an executor's restart. Its {@code attempt} stays 1: the
 * run ran once; retries happen per shard.
 *
 * <p>Each shard is claimed by an executor with its own attempt (the fencing token, invariant 5),
 * lease, pid, exit code and log. Reports about a shard carry {@link RunRef#shard()}. A failed shard
 * follows the task's retry policy alone; shards that succeeded never run again. When a shard has no
 * retries left the run FAILS at once and every other shard still open is STOPPED (running ones
 * are killed by their executors at the next heartbeat): the run's outcome is already known, so going
 * on would only spend resources. The run SUCCEEDS when every shard has.
 *
 * <p>Every shard step writes a run event with {@code data.shard}; the final run event
 * carries {@code data.shards}, one entry per shard. How attempts end is {@link ShardOutcomes}.
 */
final class Shards {
    /**
     * How long a claimable shard waits for an idle executor of its group before a busy one may
     * take it (see {@link ShardSpread}). An idle executor on this node is woken at once and one on
     * another node looks every {@code pollRecheck}, so a couple of seconds is plenty.
     */
    static final long SPREAD_GRACE_MILLIS = 2_000;
    /** Candidates looked at per poll: several per run, since a poll takes at most one shard of each. */
    static final int CANDIDATES_PER_SLOT = 8;

    private final NodeContext ctx;
    private final ShardOutcomes outcomes;

    Shards(NodeContext ctx, ConcurrencyGate gate, FollowUps followUps) {
        this.ctx = ctx;
        this.outcomes = new ShardOutcomes(ctx, gate, followUps);
    }

    private ShardStore shards() {
        return ctx.store().shards();
    }

    private static String actor(String executorId) {
        return "executor:" + executorId;
    }

    // ------------------------------------------------------------------------------------------- fan-out and claims

    /**
     * Called in the claim transaction for each run just claimed: fans a sharded one out and
     * returns true (the caller then hands out shards instead of the run).
     */
    boolean fanOut(Tx tx, RunRow run, TaskDefinition def, String executorId) {
        Sharding sharding = def.policy().sharding();
        if (sharding == null || run.cause() == Cause.PREVIEW) {
            return false;
        }
        int live = sharding.broadcast() ? able(tx, run.group(), def).size() : 0;
        int total = sharding.total(live);
        if (!shards().detachRun(tx, run.id(), run.attempt(), executorId)) {
            throw new IllegalStateException("run " + run.id() + " moved inside its own claim transaction");
        }
        // Not due before the run's slot: a run claimed ahead of it is handed out at the slot, and so are its shards.
        shards().create(tx, run.id(), total, run.group(), sharding.maxParallelShards(), run.readyAt());
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("shards", total);
        data.put("mode", sharding.broadcast() ? "broadcast" : "fixed");
        if (sharding.broadcast()) {
            data.put("liveExecutors", live);
        }
        if (sharding.maxParallelShards() != null) {
            data.put("maxParallelShards", sharding.maxParallelShards());
        }
        ctx.store()
                .events()
                .appendForRun(
                        tx,
                        run.id(),
                        EventType.SHARDED,
                        null,
                        null,
                        ctx.schedulerActor(),
                        ctx.nodeId(),
                        "fanned out into " + total + " shard" + (total == 1 ? "" : "s")
                                + (sharding.broadcast()
                                        ? " (broadcast: " + live + " live executor" + (live == 1 ? "" : "s")
                                                + " of group " + run.group() + ")"
                                        : ""),
                        data);
        return true;
    }

    /**
     * Claims shards for an executor in the caller's claim transaction: at most one shard of each
     * run per poll, and only where {@link ShardSpread} allows (spreading, maxParallelShards).
     */
    List<WorkItem> claim(Tx tx, String executorId, List<String> groups, List<String> labels, int max) {
        if (max <= 0) {
            return List.of();
        }
        List<WorkItem> out = new ArrayList<>();
        Set<Long> decided = new HashSet<>();
        Map<String, List<String>> ableByTask = new HashMap<>();
        for (ShardStore.Candidate c :
                shards().claimable(tx, groups, labels, max * CANDIDATES_PER_SLOT, SPREAD_GRACE_MILLIS)) {
            ShardRow shard = c.shard();
            if (out.size() >= max) {
                break;
            }
            if (!decided.add(shard.instanceId())) {
                continue; // one shard of an instance per poll: the next poll (of any executor) looks again
            }
            // Serialises the decision for one run across nodes (maxParallelShards, spreading).
            tx.lockKey("ax-shards:" + shard.instanceId());
            RunRow run = ctx.store().runs().find(tx, shard.instanceId()).orElse(null);
            if (run == null || run.state() != RunState.RUNNING) {
                continue;
            }
            TaskDefinition def = ctx.store().tasks().definition(tx, run.taskId(), run.taskVersion());
            Integer maxParallel = def.policy().sharding() == null
                    ? null
                    : def.policy().sharding().maxParallelShards();
            Map<String, Integer> running = shards().runningByExecutor(tx, run.id());
            List<String> live = ableByTask.computeIfAbsent(
                    shard.group() + "/" + def.environment(), k -> able(tx, shard.group(), def));
            List<Integer> others = live.stream()
                    .filter(e -> !e.equals(executorId))
                    .map(e -> running.getOrDefault(e, 0))
                    .toList();
            ShardSpread spread = ShardSpread.decide(
                    running.values().stream().mapToInt(Integer::intValue).sum(),
                    maxParallel,
                    running.getOrDefault(executorId, 0),
                    others,
                    c.waitedPastGrace());
            if (!spread.take()
                    || !shards().claim(
                                    tx,
                                    shard,
                                    executorId,
                                    ctx.config().leaseMillis(),
                                    actor(executorId),
                                    ctx.nodeId())) {
                continue;
            }
            WorkItem whole = WorkRenderer.render(tx, ctx, run, def);
            out.add(whole.asShard(
                    shard.attempt() + 1, shard.index(), shard.total(), run.requestId() + ":shard-" + shard.index()));
        }
        return out;
    }

    /**
     * The live executors of {@code group} that may run {@code def} (they carry its environment
     * labels): the ones a broadcast counts and the spreading rule waits for. An executor that
     * could never take a shard must not hold the others back.
     */
    private List<String> able(Tx tx, String group, TaskDefinition def) {
        List<String> live = ctx.store()
                .executors()
                .liveInGroup(tx, group, ctx.config().executorAlive().toMillis());
        if (def.environment().isEmpty()) {
            return live;
        }
        return live.stream()
                .filter(e -> EnvironmentMatch.matches(
                        def.environment(), ctx.store().executors().labels(tx, e)))
                .toList();
    }

    /**
     * For a waiting poll: is there a shard this executor could get now? (See {@link ShardStore#readyFor}.)
     * {@code labels} are the executor's environment labels: shards of a run whose task needs others are not for it.
     */
    boolean readyFor(Tx tx, String executorId, List<String> groups, List<String> labels) {
        return shards().readyFor(tx, executorId, groups, labels, SPREAD_GRACE_MILLIS);
    }

    // ------------------------------------------------------------------------------------------- reports

    ReportAnswer started(Started s) {
        return ctx.store()
                .tx(tx -> recordStart(tx, s.run(), s.executorId(), s.pid())
                        ? ReportAnswer.OK
                        : refuse(tx, s.run(), s.executorId(), "started"));
    }

    /** The shard's pid and its SHARD_STARTED event, fenced by attempt and executor; false (nothing written) when not held. */
    private boolean recordStart(Tx tx, RunRef run, String executorId, long pid) {
        if (!shards().recordPid(tx, run, executorId, pid)) {
            return false;
        }
        ShardRow shard = shards().find(tx, run.instanceId(), run.shard()).orElseThrow();
        ctx.store()
                .events()
                .appendForRun(
                        tx,
                        run.instanceId(),
                        EventType.SHARD_STARTED,
                        null,
                        null,
                        actor(executorId),
                        ctx.nodeId(),
                        "shard " + ShardStore.label(shard) + " attempt " + shard.attempt() + ": pid " + pid
                                + " on executor " + executorId,
                        ShardStore.data(shard.index(), shard.attempt(), Map.of("pid", pid, "executor", executorId)));
        return true;
    }

    ReportAnswer log(LogChunk chunk) {
        Store store = ctx.store();
        return store.tx(tx -> {
            if (!shards().holds(tx, chunk.run(), chunk.executorId())) {
                return ReportAnswer.refused("attempt " + chunk.run().attempt() + " of shard "
                        + chunk.run().shard() + " of run " + chunk.run().instanceId() + " is not held by executor "
                        + chunk.executorId());
            }
            store.logs().append(tx, chunk.run(), chunk.stream(), chunk.lines());
            return ReportAnswer.OK;
        });
    }

    ReportAnswer complete(Completion c) {
        boolean[] retrying = new boolean[1];
        ReportAnswer answer = ctx.store().tx(tx -> {
            // A start the completion carries first, in the same transaction (executors report a shard's start on its
            // own).
            if (c.pid() != null && !recordStart(tx, c.run(), c.executorId(), c.pid())) {
                return refuse(tx, c.run(), c.executorId(), "completion");
            }
            ShardRow shard =
                    shards().find(tx, c.run().instanceId(), c.run().shard()).orElse(null);
            if (shard == null
                    || shard.attempt() != c.run().attempt()
                    || !c.executorId().equals(shard.executorId())
                    || shard.state() != ShardState.RUNNING) {
                return refuse(tx, c.run(), c.executorId(), "completion");
            }
            boolean applied = c.success()
                    ? outcomes.succeed(tx, shard, c.exitCode(), c.message(), actor(c.executorId()))
                    : outcomes.fail(
                            tx,
                            shard,
                            c.failureKind() == null ? FailureKind.EXIT_CODE : c.failureKind(),
                            c.exitCode(),
                            c.message(),
                            actor(c.executorId()),
                            retrying);
            if (!applied) {
                return refuse(tx, c.run(), c.executorId(), "completion");
            }
            ctx.store().logs().appendAll(tx, Reports.tail(c));
            return ReportAnswer.OK;
        });
        if (retrying[0] || answer.accepted()) {
            ctx.signals().workAvailable(); // a retry is due, or a shard's end made room (maxParallelShards, spreading)
        }
        return answer;
    }

    /**
     * An async HTTP shard's service reports the outcome itself ({@code POST /api/runs/{id}/complete}
     * with {@code "shard"}): fenced by the shard's attempt like an executor's report.
     */
    ReportAnswer completeFromService(
            long instanceId, int index, int attempt, boolean success, Integer status, String message, String actor) {
        RunRef ref = new RunRef(instanceId, attempt, index);
        boolean[] retrying = new boolean[1];
        ReportAnswer answer = ctx.store().tx(tx -> {
            ShardRow shard = shards().find(tx, instanceId, index).orElse(null);
            if (shard == null || shard.attempt() != attempt || shard.state() != ShardState.RUNNING) {
                return refuse(tx, ref, actor, "completion");
            }
            boolean applied = success
                    ? outcomes.succeed(tx, shard, status, message == null ? "reported by the service" : message, actor)
                    : outcomes.fail(
                            tx,
                            shard,
                            status == null ? FailureKind.EXIT_CODE : FailureKind.HTTP_STATUS,
                            status,
                            message,
                            actor,
                            retrying);
            return applied ? ReportAnswer.OK : refuse(tx, ref, actor, "completion");
        });
        if (retrying[0]) {
            ctx.signals().workAvailable();
        }
        return answer;
    }

    /** Where a shard the executor holds stands: {@code RUNNING} while it may go on; refused otherwise. */
    ReportAnswer runState(RunRef ref, String executorId) {
        return ctx.store()
                .tx(tx -> shards().find(tx, ref.instanceId(), ref.shard())
                        .filter(s -> s.attempt() == ref.attempt() && executorId.equals(s.executorId()))
                        .map(s -> new ReportAnswer(true, s.state().name()))
                        .orElse(ReportAnswer.refused("executor " + executorId + " does not hold attempt "
                                + ref.attempt() + " of shard " + ref.shard() + " of run " + ref.instanceId())));
    }

    /** Renews the shard leases among {@code held}; returns the shard refs the executor must abandon. */
    List<RunRef> renewLeases(Tx tx, String executorId, List<RunRef> held) {
        return shards().renewLeases(tx, executorId, held, ctx.config().leaseMillis());
    }

    /** An executor restarted: the shards the server thinks it holds but it does not report are lost. */
    void registered(String executorId, List<RunRef> reported) {
        Set<RunRef> still = new HashSet<>(reported);
        List<ShardRow> lost = ctx.store().tx(tx -> shards().heldBy(tx, executorId)).stream()
                .filter(s -> !still.contains(s.ref()))
                .toList();
        for (ShardRow shard : lost) {
            failLost(shard, "executor " + executorId + " restarted without this shard", "server");
        }
    }

    /** Shards whose lease expired become EXECUTOR_LOST failures (the retry policy decides); returns how many. */
    int reapExpiredLeases(int limit) {
        int n = 0;
        for (ShardRow shard : ctx.store().tx(tx -> shards().expiredLeases(tx, limit))) {
            if (failLost(
                    shard,
                    "lease of executor " + shard.executorId() + " expired at " + shard.leaseExpiresAt()
                            + " (no heartbeat)",
                    "scheduler")) {
                n++;
            }
        }
        // A safety net: a run that ended by a path that did not stop its shards.
        for (long instanceId : ctx.store().tx(tx -> shards().endedWithOpenShards(tx, limit))) {
            ctx.store().tx(tx -> shards().stopAll(tx, instanceId, "the run has ended", "scheduler", ctx.nodeId()));
        }
        return n;
    }

    private boolean failLost(ShardRow shard, String message, String actor) {
        boolean[] retrying = new boolean[1];
        boolean applied = ctx.store()
                .tx(tx -> outcomes.fail(tx, shard, FailureKind.EXECUTOR_LOST, null, message, actor, retrying));
        if (retrying[0]) {
            ctx.signals().workAvailable();
        }
        return applied;
    }

    private ReportAnswer refuse(Tx tx, RunRef ref, String executorId, String what) {
        String reason = what + " for attempt " + ref.attempt() + " of shard " + ref.shard() + " of run "
                + ref.instanceId() + " refused: " + executorId + " does not hold its lease (the attempt is over)";
        if (ctx.store().runs().find(tx, ref.instanceId()).isPresent()) {
            ctx.store()
                    .events()
                    .appendForRun(
                            tx,
                            ref.instanceId(),
                            EventType.REPORT_REFUSED,
                            null,
                            null,
                            actor(executorId),
                            ctx.nodeId(),
                            reason,
                            ShardStore.data(ref.shard(), ref.attempt(), Map.of()));
        }
        return ReportAnswer.refused(reason);
    }

    /** The refs among {@code refs} that are about shards, and the others. */
    static List<RunRef> sharded(List<RunRef> refs) {
        return refs.stream().filter(RunRef::sharded).toList();
    }

    static List<RunRef> plain(List<RunRef> refs) {
        return refs.stream().filter(r -> !r.sharded()).toList();
    }
}
