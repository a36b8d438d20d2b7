package dev.ax.api;

import dev.ax.domain.run.RunState;
import dev.ax.domain.task.Approval;
import dev.ax.domain.task.TaskDefinitionCodec;
import dev.ax.domain.task.ValidationException;
import dev.ax.scheduler.NotFoundException;
import dev.ax.store.LogStore;
import dev.ax.store.RunRow;
import dev.ax.store.Store;
import io.javalin.http.Context;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * Approval requests: what a person sees before deciding (the preview's output, the deadline,
 * who may decide) and the decision itself. Whether this caller may decide is the scheduler's
 * call ({@code Approvals}); the route only needs a known token.
 */
final class ApprovalHandlers {
    static final int PREVIEW_LINES = 50;

    private final ApiContext api;

    ApprovalHandlers(ApiContext api) {
        this.api = api;
    }

    /**
     * @param approvers      who may decide (token names or roles); empty = any operator or admin
     * @param previewOutput  the last lines of the preview run's output
     */
    record ApprovalView(
            long instanceId,
            String taskName,
            RunState state,
            List<String> approvers,
            boolean fourEyes,
            Instant deadline,
            String requestedBy,
            Long previewInstanceId,
            RunState previewState,
            List<String> previewOutput,
            Map<String, Object> previewAction) {}

    /** {@code GET /api/runs/{id}/approval}. */
    void get(Context ctx) {
        long id = Params.pathId(ctx, "id");
        Store store = api.store();
        ctx.json(store.tx(tx -> {
            RunRow run = store.runs().find(tx, id).orElseThrow(() -> new NotFoundException("no run " + id));
            Approval approval = store.tasks()
                    .definitionAt(tx, run.taskId(), run.taskVersion())
                    .map(d -> d.policy().approval())
                    .orElse(null);
            if (approval == null) {
                // A job may ask mid-run without a gate in its policy: any operator or admin decides.
                approval = new Approval(List.of(), null, false, null);
            }
            RunRow preview = store.runs().previewOf(tx, id).orElse(null);
            List<String> output =
                    preview == null ? List.of() : tail(store.logs().read(tx, preview.id(), 0, 10_000));
            return new ApprovalView(
                    id,
                    run.taskName(),
                    run.state(),
                    approval.approvers(),
                    approval.fourEyes(),
                    run.approvalDeadline(),
                    run.actor(),
                    preview == null ? null : preview.id(),
                    preview == null ? null : preview.state(),
                    output,
                    approval.preview() == null ? null : TaskDefinitionCodec.actionToJson(approval.preview()));
        }));
    }

    /**
     * {@code POST /api/runs/{id}/approval-request}, body {@code {"summary":"1,234 rows will change"}}: a running job
     * asks a person to confirm; it then waits (polling its run) for RUNNING (approved) or CANCELED.
     */
    void request(Context ctx) {
        long id = Params.pathId(ctx, "id");
        Object summary = Bodies.object(ctx, api.json()).get("summary");
        if (summary != null && !(summary instanceof String)) {
            throw new ValidationException("summary", "must be a string: what the person is asked to confirm");
        }
        RunRow run = api.node().approvals().requestMidRun(id, Auth.actor(ctx), (String) summary);
        ctx.json(Map.of("instanceId", id, "state", run.state()));
    }

    /** {@code POST /api/runs/{id}/approve}, body {@code {"comment":"..."}} or none. */
    void approve(Context ctx) {
        long id = Params.pathId(ctx, "id");
        api.node().approvals().approve(id, Auth.principal(ctx), comment(ctx));
        ctx.json(api.store()
                .tx(tx -> api.store()
                        .runs()
                        .find(tx, id)
                        .map(r -> Map.of("instanceId", id, "state", r.state()))
                        .orElseThrow()));
    }

    /** {@code POST /api/runs/{id}/reject}, body {@code {"comment":"..."}} or none. */
    void reject(Context ctx) {
        long id = Params.pathId(ctx, "id");
        api.node().approvals().reject(id, Auth.principal(ctx), comment(ctx));
        ctx.json(api.store()
                .tx(tx -> api.store()
                        .runs()
                        .find(tx, id)
                        .map(r -> Map.of("instanceId", id, "state", r.state()))
                        .orElseThrow()));
    }

    private String comment(Context ctx) {
        Object comment = Bodies.object(ctx, api.json()).get("comment");
        if (comment != null && !(comment instanceof String)) {
            throw new ValidationException("comment", "must be a string: why, for the run's events");
        }
        return (String) comment;
    }

    private static List<String> tail(List<LogStore.LogLine> chunks) {
        List<String> lines = new ArrayList<>();
        for (LogStore.LogLine chunk : chunks) {
            lines.addAll(Arrays.asList(chunk.text().split("\n", -1)));
        }
        return lines.subList(Math.max(0, lines.size() - PREVIEW_LINES), lines.size());
    }
}
