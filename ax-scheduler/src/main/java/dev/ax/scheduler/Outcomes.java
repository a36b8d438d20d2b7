package dev.ax.scheduler;

import dev.ax.domain.policy.RetryDecision;
import dev.ax.domain.run.Cause;
import dev.ax.domain.run.EventType;
import dev.ax.domain.run.FailureKind;
import dev.ax.domain.run.RunState;
import dev.ax.domain.task.TaskDefinition;
import dev.ax.store.Move;
import dev.ax.store.RunBatches;
import dev.ax.store.RunRow;
import dev.ax.store.TaskRow;
import dev.ax.store.TaskStore;
import dev.ax.store.Tx;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The end of an attempt: success, or a failure that the task's retry policy turns into another
 * attempt (RUNNING → RETRYING) or the end (RUNNING → FAILED). Shared by executor reports and the
 * lease reaper, so a lost executor and a failed command follow one rule.
 */
final class Outcomes {
    private final NodeContext ctx;
    private final ConcurrencyGate gate;
    private final FollowUps followUps;

    Outcomes(NodeContext ctx, ConcurrencyGate gate, FollowUps followUps) {
        this.ctx = ctx;
        this.gate = gate;
        this.followUps = followUps;
    }

    /** The task of an attempt that ends, and whether this transaction holds its row lock. */
    private record TaskAtEnd(Optional<TaskRow> row, boolean locked) {}

    /**
     * The task row for an attempt's end. Locked first (the one lock order: task, then runs)
     * when the end may hand something to other runs in the same transaction: a slot under a
     * concurrency limit, dependents to wake, a canary to judge. A task with none of these
     * ({@code overflow: ALLOW} admits every run, so none waits for a slot) is only read: a flood
     * of one task's runs then ends in parallel instead of in single file behind its row. A run
     * that waits anyway (the policy changed meanwhile) gets its slot from the housekeeping loop's
     * {@code unblock} within half a second.
     */
    private TaskAtEnd taskAtEnd(Tx tx, RunRow run) {
        if (ctx.store()
                .tasks()
                .definition(tx, run.taskId(), run.taskVersion())
                .policy()
                .unlimited()) {
            Optional<TaskRow> read = ctx.store().tasks().findById(tx, run.taskId());
            if (read.isEmpty()
                    || !handsOn(
                            read.get().definition().policy().unlimited(),
                            read.get().hasDependents(),
                            read.get().canary())) {
                return new TaskAtEnd(read, false);
            }
        }
        return new TaskAtEnd(ctx.store().tasks().lockById(tx, run.taskId()), true);
    }

    /** Whether a run's end may hand something to other runs: a slot under a limit, dependents to wake, a canary to judge. */
    private static boolean handsOn(boolean unlimited, boolean hasDependents, boolean canary) {
        return !unlimited || hasDependents || canary;
    }

    /**
     * True when a success of {@code run} hands nothing on: its task (read, not locked) admits
     * every run, nothing depends on it, it is no canary and the run is no workflow node — so
     * {@link #ended} has nothing to do for it, and {@link #succeedAlone} may apply many such
     * successes together. A deleted task is not alone (the single path knows what to do).
     */
    boolean endsAlone(Tx tx, RunRow run, Optional<TaskStore.EndFlags> task) {
        return run.cause() != Cause.WORKFLOW
                && task.isPresent()
                && ctx.store()
                        .tasks()
                        .definition(tx, run.taskId(), run.taskVersion())
                        .policy()
                        .unlimited()
                && !handsOn(
                        ctx.store()
                                .tasks()
                                .definition(tx, task.get().id(), task.get().version())
                                .policy()
                                .unlimited(),
                        task.get().hasDependents(),
                        task.get().canary());
    }

    /**
     * Applies successes of runs that {@link #endsAlone}, all moves and their events in one
     * statement (PostgreSQL); returns the ids that moved. A run not moved lost a race or was
     * fenced out: its report goes the single way, through {@link #succeed}, which refuses it.
     */
    Set<Long> succeedAlone(Tx tx, List<RunBatches.Success> successes) {
        return ctx.store().runBatches().succeedAll(tx, successes, ctx.nodeId());
    }

    /**
     * What every end of a run does after its move: slots, dependents, workflow nodes, canaries.
     * Whatever is added here must be nothing for a run that {@link #endsAlone}: batched successes skip it.
     */
    private void ended(Tx tx, TaskAtEnd task, RunRow run, RunState to) {
        if (task.locked()) {
            task.row().ifPresent(t -> gate.release(tx, t));
        }
        WorkflowNodeEnds.onRunEnded(ctx, tx, run, to);
        gate.canaries().afterRun(tx, task.row(), run);
    }

    /** Applies a success; false if the attempt no longer holds the lease (fenced out). */
    boolean succeed(Tx tx, RunRow run, String executorId, Integer exitCode, String message, String actor) {
        TaskAtEnd task = taskAtEnd(tx, run);
        Move move = Move.of(run.id(), RunState.RUNNING, RunState.SUCCESS)
                .fence(run.attempt(), executorId)
                .set(Move.Column.EXIT_CODE, exitCode)
                .set(Move.Column.MESSAGE, message)
                .set(Move.Column.END_NODE, ctx.nodeId())
                .finished();
        if (!actor.equals(Dispatcher.actor(executorId)) || recordsSuccess(tx, run)) {
            move.event(EventType.SUCCEEDED, actor, ctx.nodeId(), message == null ? "exit " + exitCode : message);
        }
        boolean moved = ctx.store().runs().move(tx, move);
        if (moved) {
            ended(tx, task, run, RunState.SUCCESS);
        }
        return moved;
    }

    /**
     * Whether a success of {@code run} is written as a SUCCEEDED event: when its task's alerts
     * watch its runs (a recovery or a success notice is an alert told from that event).
     * Otherwise a success is a routine step its run's columns hold (docs/architecture.md, "The
     * event log"), and an executor's success is the routine one.
     */
    boolean recordsSuccess(Tx tx, RunRow run) {
        return !ctx.store()
                .tasks()
                .definition(tx, run.taskId(), run.taskVersion())
                .policy()
                .notifyOnFailure()
                .isEmpty();
    }

    /** Applies a failure, retrying if the policy says so; false if fenced out. */
    boolean fail(
            Tx tx, RunRow run, String executorId, FailureKind kind, Integer exitCode, String message, String actor) {
        TaskAtEnd task = taskAtEnd(tx, run);
        TaskDefinition def = ctx.store().tasks().definition(tx, run.taskId(), run.taskVersion());
        // Jitter drawn per failure; the decision itself stays a pure function of it.
        RetryDecision decision = RetryDecision.decide(
                def.policy(),
                run.attempt(),
                kind,
                exitCode,
                ThreadLocalRandom.current().nextDouble());
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("failureKind", kind.name());
        if (exitCode != null) {
            data.put("exitCode", exitCode);
        }
        data.put("decision", decision.reason());
        String what = describe(kind, exitCode, message);
        if (decision.retry()) {
            data.put("retryInSeconds", decision.delay().toSeconds());
            return ctx.store()
                    .runs()
                    .move(
                            tx,
                            Move.of(run.id(), RunState.RUNNING, RunState.RETRYING)
                                    .fence(run.attempt(), executorId)
                                    .set(Move.Column.EXIT_CODE, exitCode)
                                    .set(Move.Column.FAILURE_KIND, kind)
                                    .set(Move.Column.MESSAGE, what)
                                    .set(
                                            Move.Column.READY_AT,
                                            new Move.DbTime(
                                                    Math.max(1, decision.delay().toMillis())))
                                    .set(Move.Column.LEASE_EXPIRES_AT, null)
                                    .event(
                                            kind == FailureKind.EXECUTOR_LOST
                                                    ? EventType.EXECUTOR_LOST
                                                    : EventType.RETRY_SCHEDULED,
                                            actor,
                                            ctx.nodeId(),
                                            what + "; " + decision.reason())
                                    .data(data));
        }
        boolean moved = ctx.store()
                .runs()
                .move(
                        tx,
                        Move.of(run.id(), RunState.RUNNING, RunState.FAILED)
                                .fence(run.attempt(), executorId)
                                .set(Move.Column.EXIT_CODE, exitCode)
                                .set(Move.Column.FAILURE_KIND, kind)
                                .set(Move.Column.MESSAGE, what)
                                .finished()
                                .event(
                                        kind == FailureKind.EXECUTOR_LOST ? EventType.EXECUTOR_LOST : EventType.FAILED,
                                        actor,
                                        ctx.nodeId(),
                                        what + "; " + decision.reason())
                                .data(data));
        if (moved && run.cause() != Cause.PREVIEW && run.cause() != Cause.TEST) {
            followUps.enqueue(tx, run, def);
        }
        if (moved) {
            ended(tx, task, run, RunState.FAILED);
        }
        return moved;
    }

    static String describe(FailureKind kind, Integer exitCode, String message) {
        String base = switch (kind) {
            case EXIT_CODE -> exitCode == null ? "failed" : "exited with code " + exitCode;
            case TIMEOUT -> "timed out";
            case EXECUTOR_LOST -> "executor lost";
            case START_ERROR -> "could not start";
            case HTTP_STATUS -> "HTTP status " + exitCode;
            case CONNECTION -> "connection failed";
            case FATAL -> "failed, not retryable";
        };
        // Executors often say the same thing ("exited with code 3"): do not repeat it.
        return message == null || message.isBlank() || message.startsWith(base)
                ? (message == null || message.isBlank() ? base : message)
                : base + ": " + message;
    }
}
