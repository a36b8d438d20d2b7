package dev.ax.scheduler;

import dev.ax.domain.policy.RetryDecision;
import dev.ax.domain.run.EventType;
import dev.ax.domain.run.FailureKind;
import dev.ax.domain.run.RunState;
import dev.ax.domain.run.ShardState;
import dev.ax.domain.task.TaskDefinition;
import dev.ax.store.Move;
import dev.ax.store.RunRow;
import dev.ax.store.ShardEnd;
import dev.ax.store.ShardRow;
import dev.ax.store.ShardStore;
import dev.ax.store.TaskRow;
import dev.ax.store.Tx;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The end of a shard attempt, and of the sharded run: a success (the run SUCCEEDS with the last
 * shard), or a failure that the task's retry policy turns into another attempt of that shard alone
 * (RUNNING → RETRYING) or the end of the shard — and then of the run, FAILED with the per-shard
 * picture, its other shards STOPPED. Shared by executor reports, async services and the lease
 * reaper, like {@link Outcomes} for runs that are not sharded. Each method runs in the caller's
 * transaction, locks the task first (the one lock order) and is fenced by the shard's attempt and
 * executor; false means fenced out.
 */
final class ShardOutcomes {
    private final NodeContext ctx;
    private final ConcurrencyGate gate;
    private final FollowUps followUps;

    ShardOutcomes(NodeContext ctx, ConcurrencyGate gate, FollowUps followUps) {
        this.ctx = ctx;
        this.gate = gate;
        this.followUps = followUps;
    }

    private ShardStore shards() {
        return ctx.store().shards();
    }

    boolean succeed(Tx tx, ShardRow shard, Integer exitCode, String message, String actor) {
        RunRow run = ctx.store().runs().find(tx, shard.instanceId()).orElseThrow();
        Optional<TaskRow> task = ctx.store().tasks().lockById(tx, run.taskId()); // task first: the one lock order
        Map<String, Object> data =
                ShardStore.data(shard.index(), shard.attempt(), Map.of("executor", shard.executorId()));
        if (exitCode != null) {
            data.put("exitCode", exitCode);
        }
        if (!shards().finish(
                        tx,
                        ShardEnd.of(shard, ShardState.SUCCESS)
                                .outcome(exitCode, null, message)
                                .event(
                                        EventType.SHARD_SUCCEEDED,
                                        actor,
                                        ctx.nodeId(),
                                        "shard " + ShardStore.label(shard) + " attempt " + shard.attempt()
                                                + " succeeded" + (message == null ? "" : ": " + message))
                                .data(data))) {
            return false;
        }
        List<ShardRow> all = shards().ofRun(tx, run.id());
        if (all.stream().allMatch(s -> s.state() == ShardState.SUCCESS)) {
            int attempts = all.stream().mapToInt(ShardRow::attempt).sum();
            String what = "all " + all.size() + " shards succeeded (" + attempts + " shard attempt"
                    + (attempts == 1 ? "" : "s") + ")";
            if (ctx.store()
                    .runs()
                    .move(
                            tx,
                            Move.of(run.id(), RunState.RUNNING, RunState.SUCCESS)
                                    .set(Move.Column.EXIT_CODE, 0)
                                    .set(Move.Column.MESSAGE, what)
                                    .finished()
                                    .event(EventType.SUCCEEDED, actor, ctx.nodeId(), what)
                                    .data(Map.of("shards", summary(all))))) {
                task.ifPresent(t -> gate.release(tx, t));
                WorkflowNodeEnds.onRunEnded(ctx, tx, run, RunState.SUCCESS);
                gate.canaries().afterRun(tx, task, run);
            }
        }
        return true;
    }

    boolean fail(
            Tx tx,
            ShardRow shard,
            FailureKind kind,
            Integer exitCode,
            String message,
            String actor,
            boolean[] retrying) {
        RunRow run = ctx.store().runs().find(tx, shard.instanceId()).orElseThrow();
        Optional<TaskRow> task = ctx.store().tasks().lockById(tx, run.taskId());
        TaskDefinition def = ctx.store().tasks().definition(tx, run.taskId(), run.taskVersion());
        RetryDecision decision = RetryDecision.decide(
                def.policy(),
                shard.attempt(),
                kind,
                exitCode,
                ThreadLocalRandom.current().nextDouble());
        String what = Outcomes.describe(kind, exitCode, message);
        Map<String, Object> data = ShardStore.data(shard.index(), shard.attempt(), Map.of());
        if (shard.executorId() != null) {
            data.put("executor", shard.executorId());
        }
        data.put("failureKind", kind.name());
        if (exitCode != null) {
            data.put("exitCode", exitCode);
        }
        data.put("decision", decision.reason());
        String label = "shard " + ShardStore.label(shard) + " attempt " + shard.attempt();
        boolean lost = kind == FailureKind.EXECUTOR_LOST;
        if (decision.retry()) {
            data.put("retryInSeconds", decision.delay().toSeconds());
            boolean moved = shards().finish(
                            tx,
                            ShardEnd.of(shard, ShardState.RETRYING)
                                    .outcome(exitCode, kind, what)
                                    .retryIn(Math.max(1, decision.delay().toMillis()))
                                    .event(
                                            lost ? EventType.SHARD_LOST : EventType.SHARD_RETRY_SCHEDULED,
                                            actor,
                                            ctx.nodeId(),
                                            label + " " + what + "; " + decision.reason())
                                    .data(data));
            retrying[0] = moved;
            return moved;
        }
        if (!shards().finish(
                        tx,
                        ShardEnd.of(shard, ShardState.FAILED)
                                .outcome(exitCode, kind, what)
                                .event(
                                        lost ? EventType.SHARD_LOST : EventType.SHARD_FAILED,
                                        actor,
                                        ctx.nodeId(),
                                        label + " " + what + "; " + decision.reason())
                                .data(data))) {
            return false;
        }
        // The run cannot succeed any more: stop the other shards rather than let them spend their resources.
        String why = "shard " + ShardStore.label(shard) + " failed after " + shard.attempt() + " attempt"
                + (shard.attempt() == 1 ? "" : "s");
        shards().stopAll(tx, run.id(), why, ctx.schedulerActor(), ctx.nodeId());
        List<ShardRow> all = shards().ofRun(tx, run.id());
        String instanceMessage = why + ": " + what + " (" + picture(all) + ")";
        Map<String, Object> instanceData = new LinkedHashMap<>();
        instanceData.put("failureKind", kind.name());
        if (exitCode != null) {
            instanceData.put("exitCode", exitCode);
        }
        instanceData.put("decision", decision.reason());
        instanceData.put("failedShard", shard.index());
        instanceData.put("shards", summary(all));
        boolean moved = ctx.store()
                .runs()
                .move(
                        tx,
                        Move.of(run.id(), RunState.RUNNING, RunState.FAILED)
                                .set(Move.Column.EXIT_CODE, exitCode)
                                .set(Move.Column.FAILURE_KIND, kind)
                                .set(Move.Column.MESSAGE, instanceMessage)
                                .finished()
                                .event(
                                        lost ? EventType.EXECUTOR_LOST : EventType.FAILED,
                                        actor,
                                        ctx.nodeId(),
                                        instanceMessage)
                                .data(instanceData));
        if (moved) {
            followUps.enqueue(tx, run, def);
            task.ifPresent(t -> gate.release(tx, t));
            WorkflowNodeEnds.onRunEnded(ctx, tx, run, RunState.FAILED);
            gate.canaries().afterRun(tx, task, run);
        }
        return true;
    }

    /** {@code 0 SUCCESS, 1 SUCCESS, 2 FAILED (3 attempts), 3 STOPPED}: the per-shard picture for messages. */
    static String picture(List<ShardRow> shards) {
        List<String> parts = new ArrayList<>();
        for (ShardRow s : shards) {
            parts.add("shard " + s.index() + " " + s.state()
                    + (s.attempt() > 1 ? " (" + s.attempt() + " attempts)" : ""));
        }
        return String.join(", ", parts);
    }

    /** One entry per shard, for the final event's data. */
    static List<Map<String, Object>> summary(List<ShardRow> shards) {
        List<Map<String, Object>> out = new ArrayList<>();
        for (ShardRow s : shards) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("shard", s.index());
            m.put("state", s.state().name());
            m.put("attempts", s.attempt());
            if (s.executorId() != null) {
                m.put("executor", s.executorId());
            }
            if (s.exitCode() != null) {
                m.put("exitCode", s.exitCode());
            }
            out.add(m);
        }
        return out;
    }
}
