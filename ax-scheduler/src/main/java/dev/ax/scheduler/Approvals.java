package dev.ax.scheduler;

import dev.ax.domain.access.Principal;
import dev.ax.domain.access.Role;
import dev.ax.domain.run.Cause;
import dev.ax.domain.run.EventType;
import dev.ax.domain.run.RunState;
import dev.ax.domain.task.Approval;
import dev.ax.domain.task.TaskDefinition;
import dev.ax.store.Move;
import dev.ax.store.NewRun;
import dev.ax.store.RunRow;
import dev.ax.store.Store;
import dev.ax.store.TaskRow;
import dev.ax.store.Tx;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Approval gates ("preview the affected rows, then a person confirms"). A run of a
 * task with {@code policy.approval} waits in WAITING_APPROVAL; its preview action, if any, runs
 * first as a child run (cause {@code preview}) whose output goes with the request. Each
 * decision — approve, reject, expiry — is a state change with an event naming who and why.
 */
public final class Approvals {
    private final NodeContext ctx;
    private final ConcurrencyGate gate;

    Approvals(NodeContext ctx, ConcurrencyGate gate) {
        this.ctx = ctx;
        this.gate = gate;
    }

    /**
     * Opens the request of a run that just entered WAITING_APPROVAL: deadline, event, preview
     * run. Static so the concurrency gate can call it without a cycle between the two.
     */
    static void open(NodeContext ctx, Tx tx, long id, TaskRow task, Approval approval) {
        Store store = ctx.store();
        store.runs()
                .setApprovalDeadline(
                        tx, id, approval.timeoutSeconds() == null ? null : approval.timeoutSeconds() * 1000);
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("approvers", approval.approvers().isEmpty() ? "any operator or admin" : approval.approvers());
        data.put("fourEyes", approval.fourEyes());
        String message = "waiting for approval by " + data.get("approvers")
                + (approval.timeoutSeconds() == null ? "" : "; expires in " + approval.timeoutSeconds() + "s");
        if (approval.preview() != null) {
            RunRow run = store.runs().find(tx, id).orElseThrow();
            TaskDefinition def = task.definition();
            long preview = store.runs()
                    .create(
                            tx,
                            new NewRun(
                                    task.id(),
                                    task.name(),
                                    run.taskVersion(),
                                    Cause.PREVIEW,
                                    "preview:" + id,
                                    run.scheduledAt(),
                                    run.params(),
                                    RunState.READY,
                                    1,
                                    def.group(),
                                    ctx.schedulerActor(),
                                    ctx.nodeId(),
                                    id,
                                    run.rootId() != null ? run.rootId() : id,
                                    "preview for the approval of run " + id))
                    .orElseThrow();
            data.put("previewInstanceId", preview);
            message += "; preview runs as run " + preview;
            ctx.signals().workAvailable();
        }
        store.events()
                .appendForRun(
                        tx,
                        id,
                        EventType.APPROVAL_REQUESTED,
                        null,
                        null,
                        ctx.schedulerActor(),
                        ctx.nodeId(),
                        message,
                        data);
    }

    /**
     * A running job asks a person to confirm before it goes on. The run moves RUNNING → WAITING_APPROVAL and keeps its
     * executor and lease; the job waits (polling its run) until it is RUNNING again
     * (approved) or CANCELED (rejected, expired: its process is then killed).
     */
    public RunRow requestMidRun(long id, String actor, String rawSummary) {
        // A job's own words, stored and shown with the request: the one way they come in, from an executor or the API.
        String summary = ctx.secrets().mask().apply(rawSummary);
        Store store = ctx.store();
        return store.tx(tx -> {
            RunRow seen = store.runs().find(tx, id).orElseThrow(() -> new NotFoundException("no run " + id));
            store.tasks().lockById(tx, seen.taskId());
            RunRow run = store.runs().find(tx, id).orElseThrow();
            if (run.state() != RunState.RUNNING) {
                throw new ConflictException(
                        "run " + id + " is " + run.state() + "; only a RUNNING run can ask for approval");
            }
            Approval approval = store.tasks()
                    .definitionAt(tx, run.taskId(), run.taskVersion())
                    .orElseThrow()
                    .policy()
                    .approval();
            Map<String, Object> data = new LinkedHashMap<>();
            data.put("summary", summary == null ? "" : summary);
            data.put("midRun", true);
            String message =
                    "the running job asks for approval" + (summary == null || summary.isBlank() ? "" : ": " + summary);
            if (!store.runs()
                    .move(
                            tx,
                            Move.of(id, RunState.RUNNING, RunState.WAITING_APPROVAL)
                                    .event(EventType.APPROVAL_REQUESTED, actor, ctx.nodeId(), message)
                                    .data(data))) {
                throw new ConflictException("run " + id + " changed meanwhile; look again");
            }
            Long timeout = approval == null ? null : approval.timeoutSeconds();
            store.runs().setApprovalDeadline(tx, id, timeout == null ? null : timeout * 1000);
            return store.runs().find(tx, id).orElseThrow();
        });
    }

    /** An allowed person approves: the run becomes READY (or RUNNING again, when its job asked mid-run). */
    public RunRow approve(long id, Principal who, String comment) {
        return decide(id, who, comment, true);
    }

    /** An allowed person rejects: the run is CANCELED and its slot freed. */
    public RunRow reject(long id, Principal who, String comment) {
        return decide(id, who, comment, false);
    }

    /**
     * Who may decide on a run: the approvers of its task's version (people, roles for the task's team, roles in a
     * team), by default any operator or admin of the task's team; with four eyes, never who triggered it.
     */
    private RunRow decide(long id, Principal who, String rawComment, boolean approve) {
        String actor = who.name();
        String comment = ctx.secrets().mask().apply(rawComment);
        Store store = ctx.store();
        RunRow decided = store.tx(tx -> {
            RunRow seen = store.runs().find(tx, id).orElseThrow(() -> new NotFoundException("no run " + id));
            TaskRow task = store.tasks().lockById(tx, seen.taskId()).orElse(null);
            RunRow run = store.runs().find(tx, id).orElseThrow();
            if (run.state() != RunState.WAITING_APPROVAL) {
                throw new ConflictException("run " + id + " is " + run.state() + "; it is not waiting for approval");
            }
            TaskDefinition version = ctx.store()
                    .tasks()
                    .definitionAt(tx, run.taskId(), run.taskVersion())
                    .orElseThrow();
            Approval approval = version.policy().approval();
            String team = version.team();
            boolean allowed = approval == null ? who.allows(Role.OPERATOR, team) : approval.allows(who, team);
            if (!allowed) {
                throw new ForbiddenException(
                        actor + " (" + who.roleIn(team).wireName() + (team == null ? "" : " in team " + team)
                                + ") may not decide on run " + id + "; approvers: "
                                + (approval == null
                                        ? "any operator or admin of the task's team"
                                        : approval.describeApprovers()));
            }
            if (approval != null && approval.fourEyes() && actor.equals(run.actor())) {
                throw new ForbiddenException(
                        "four-eyes rule: " + actor + " triggered run " + id + " and may not decide on it");
            }
            Map<String, Object> data = new LinkedHashMap<>();
            data.put("comment", comment == null ? "" : comment);
            String message = (approve ? "approved by " : "rejected by ")
                    + actor
                    + (comment == null || comment.isBlank() ? "" : ": " + comment);
            // attempt > 0: the run was claimed, so its job asked mid-run and its process is waiting.
            boolean midRun = run.attempt() > 0;
            Move move = approve
                    ? (midRun
                                    ? Move.of(id, RunState.WAITING_APPROVAL, RunState.RUNNING)
                                    : Move.of(id, RunState.WAITING_APPROVAL, RunState.READY)
                                            .set(Move.Column.READY_AT, Move.NOW))
                            .event(EventType.APPROVED, actor, ctx.nodeId(), message)
                            .data(data)
                    : Move.of(id, RunState.WAITING_APPROVAL, RunState.CANCELED)
                            .finished()
                            .event(EventType.REJECTED, actor, ctx.nodeId(), message)
                            .data(data);
            if (!store.runs().move(tx, move)) {
                throw new ConflictException("run " + id + " changed meanwhile; look again");
            }
            store.runs().setApprovalDeadline(tx, id, null);
            if (!approve && task != null) {
                gate.release(tx, task);
            }
            if (!approve) {
                WorkflowNodeEnds.onRunEnded(ctx, tx, id, RunState.CANCELED);
            }
            return store.runs().find(tx, id).orElseThrow();
        });
        if (approve) {
            ctx.signals().workAvailable();
        }
        return decided;
    }

    /** Cancels requests nobody decided in time; returns how many. */
    int expire() {
        Store store = ctx.store();
        int n = 0;
        for (RunRow run : store.tx(tx -> store.runs().expiredApprovals(tx, Housekeeping.BATCH))) {
            boolean expired = store.tx(tx -> {
                TaskRow task = store.tasks().lockById(tx, run.taskId()).orElse(null);
                boolean moved = store.runs()
                        .move(
                                tx,
                                Move.of(run.id(), RunState.WAITING_APPROVAL, RunState.CANCELED)
                                        .finished()
                                        .event(
                                                EventType.APPROVAL_EXPIRED,
                                                ctx.schedulerActor(),
                                                ctx.nodeId(),
                                                "nobody approved before " + run.approvalDeadline()));
                if (moved && task != null) {
                    gate.release(tx, task);
                }
                if (moved) {
                    WorkflowNodeEnds.onRunEnded(ctx, tx, run.id(), RunState.CANCELED);
                }
                return moved;
            });
            n += expired ? 1 : 0;
        }
        return n;
    }
}
