package dev.ax.scheduler;

import dev.ax.domain.run.Cause;
import dev.ax.domain.run.EventType;
import dev.ax.domain.run.RunState;
import dev.ax.domain.task.TaskDefinition;
import dev.ax.store.Move;
import dev.ax.store.NewRun;
import dev.ax.store.RunRow;
import dev.ax.store.Store;
import dev.ax.store.TaskRow;
import dev.ax.store.Tx;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * What operators do to runs: terminate, cancel, retry, re-run. Each is one transaction that
 * locks the task first (the one lock order), changes state through the state machine and
 * records who did it and why.
 *
 * <p>Terminal states are final (DESIGN invariant 4), so "retry a failed run" does not reopen it:
 * it creates a new run whose trigger chain points at the failed one, with the same task
 * version and parameters. "Re-run" does the same with the task's current version.
 */
public final class Runs {
    private static final Set<RunState> CANCELABLE = Set.of(
            RunState.READY,
            RunState.BLOCKED,
            RunState.RETRYING,
            RunState.WAITING_APPROVAL,
            RunState.WAITING_DEPENDENCY);
    private static final Set<RunState> RETRYABLE = Set.of(RunState.FAILED, RunState.TERMINATED, RunState.CANCELED);

    private final NodeContext ctx;
    private final ConcurrencyGate gate;

    Runs(NodeContext ctx, ConcurrencyGate gate) {
        this.ctx = ctx;
        this.gate = gate;
    }

    /** Stops a RUNNING run: TERMINATED now; its executor kills the process tree at its next heartbeat. */
    public RunRow terminate(long id, String actor, String reason) {
        return change(id, (tx, run, task) -> {
            if (run.state() != RunState.RUNNING) {
                throw new ConflictException(
                        "run " + id + " is " + run.state() + "; only a RUNNING run can be terminated"
                                + (CANCELABLE.contains(run.state()) ? " (cancel it instead)" : ""));
            }
            String why = why("terminated by " + actor, reason);
            // A sharded run's shards end with it (same transaction); their executors kill them at the next heartbeat.
            ctx.store().shards().stopAll(tx, id, why, actor, ctx.nodeId());
            return Move.of(id, RunState.RUNNING, RunState.TERMINATED)
                    .finished()
                    .set(Move.Column.MESSAGE, why)
                    .event(EventType.TERMINATED, actor, ctx.nodeId(), why);
        });
    }

    /** Withdraws a run that has not finished and is not running. */
    public RunRow cancel(long id, String actor, String reason) {
        return change(id, (tx, run, task) -> {
            if (!CANCELABLE.contains(run.state())) {
                throw new ConflictException("run " + id + " is " + run.state() + "; only a waiting run can be canceled"
                        + (run.state() == RunState.RUNNING ? " (terminate it instead)" : ""));
            }
            String why = why("canceled by " + actor, reason);
            return Move.of(id, run.state(), RunState.CANCELED)
                    .finished()
                    .set(Move.Column.MESSAGE, why)
                    .event(EventType.CANCELED, actor, ctx.nodeId(), why);
        });
    }

    /** A new run of a failed, terminated or canceled one: same version, same parameters, chained to it. */
    public long retry(long id, String actor) {
        return again(id, actor, true);
    }

    /** A new run with the same parameters and the task's current version, chained to the old one. */
    public long rerun(long id, String actor) {
        return again(id, actor, false);
    }

    private long again(long id, String actor, boolean sameVersion) {
        Store store = ctx.store();
        long created = store.tx(tx -> {
            RunRow old = store.runs().find(tx, id).orElseThrow(() -> new NotFoundException("no run " + id));
            if (sameVersion && !RETRYABLE.contains(old.state())) {
                throw new ConflictException(
                        "run " + id + " is " + old.state() + "; retry takes a FAILED, TERMINATED or CANCELED run"
                                + (old.state().isTerminal() ? " (re-run it instead)" : ""));
            }
            if (!old.state().isTerminal()) {
                throw new ConflictException("run " + id + " is " + old.state() + "; it has not finished yet");
            }
            TaskRow task = store.tasks()
                    .lockById(tx, old.taskId())
                    .orElseThrow(() -> new NotFoundException("task " + old.taskName() + " no longer exists"));
            int version = sameVersion ? old.taskVersion() : task.version();
            TaskDefinition def = sameVersion
                    ? ctx.store()
                            .tasks()
                            .definitionAt(tx, old.taskId(), version)
                            .orElseThrow(() -> new NotFoundException(
                                    "version " + version + " of task " + old.taskName() + " is gone"))
                    : task.definition();
            Cause cause = sameVersion ? Cause.RETRY : Cause.MANUAL;
            long root = old.rootId() != null ? old.rootId() : old.id();
            String what = (sameVersion ? "retry" : "re-run") + " of run " + id + " by " + actor;
            // A re-run meets the current version's declarations, which may have changed since.
            Map<String, Object> params = Tasks.checkParams(def, old.params(), tx.now());
            return gate.admit(
                            tx,
                            task,
                            new NewRun(
                                    task.id(),
                                    task.name(),
                                    version,
                                    cause,
                                    cause.wireName() + ":" + UUID.randomUUID(),
                                    tx.now(),
                                    params,
                                    RunState.READY,
                                    def.policy().maxAttempts(),
                                    def.group(),
                                    actor,
                                    ctx.nodeId(),
                                    old.id(),
                                    root,
                                    what))
                    .orElseThrow();
        });
        ctx.signals().workAvailable();
        return created;
    }

    @FunctionalInterface
    private interface Decide {
        Move decide(Tx tx, RunRow run, TaskRow task);
    }

    private RunRow change(long id, Decide decide) {
        Store store = ctx.store();
        return store.tx(tx -> {
            RunRow seen = store.runs().find(tx, id).orElseThrow(() -> new NotFoundException("no run " + id));
            TaskRow task = store.tasks().lockById(tx, seen.taskId()).orElse(null);
            // Re-read under the task lock: the run may have moved while we waited for it.
            RunRow run = store.runs().find(tx, id).orElseThrow();
            Move move = decide.decide(tx, run, task);
            if (!store.runs().move(tx, move)) {
                throw new ConflictException("run " + id + " changed meanwhile; look again");
            }
            if (task != null) {
                gate.release(tx, task);
            }
            WorkflowNodeEnds.onRunEnded(ctx, tx, run, move.to());
            return store.runs().find(tx, id).orElseThrow();
        });
    }

    /** The message of an operator's stop: a reason is stored and shown, so a secret's value in it is masked first. */
    private String why(String what, String reason) {
        return reason == null || reason.isBlank()
                ? what
                : what + ": " + ctx.secrets().mask().apply(reason);
    }
}
