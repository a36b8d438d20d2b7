package dev.ax.api;

import dev.ax.domain.protocol.Completion;
import dev.ax.domain.protocol.Heartbeat;
import dev.ax.domain.protocol.LogChunk;
import dev.ax.domain.protocol.Poll;
import dev.ax.domain.protocol.Register;
import dev.ax.domain.protocol.ReportAnswer;
import dev.ax.domain.protocol.Started;
import dev.ax.domain.protocol.WorkItem;
import io.javalin.http.Context;
import java.util.List;

/**
 * The executor protocol over HTTP: each body is a {@code dev.ax.domain.protocol} record, each
 * answer the dispatcher's. A refused report (the executor lost the attempt's lease) is a 409
 * whose body is still the {@link ReportAnswer}, so the executor learns why.
 */
final class ExecutorHandlers {
    /** The poll answer's body. */
    record PollAnswer(List<WorkItem> items) {
    }

    private final ApiContext api;

    ExecutorHandlers(ApiContext api) {
        this.api = api;
    }

    void register(Context ctx) {
        ctx.json(api.dispatcher().register(Bodies.read(ctx, api.json(), Register.class)));
    }

    /** Blocks up to {@code waitMillis}: Jetty runs requests on virtual threads, so waiting executors cost no platform thread. */
    void poll(Context ctx) throws InterruptedException {
        ctx.json(new PollAnswer(api.dispatcher().poll(Bodies.read(ctx, api.json(), Poll.class))));
    }

    void heartbeat(Context ctx) {
        ctx.json(api.dispatcher().heartbeat(Bodies.read(ctx, api.json(), Heartbeat.class)));
    }

    void started(Context ctx) {
        report(ctx, api.dispatcher().started(Bodies.read(ctx, api.json(), Started.class)));
    }

    void log(Context ctx) {
        report(ctx, api.dispatcher().log(Bodies.read(ctx, api.json(), LogChunk.class)));
    }

    void complete(Context ctx) {
        report(ctx, api.dispatcher().complete(Bodies.read(ctx, api.json(), Completion.class)));
    }

    void requestApproval(Context ctx) {
        report(ctx, api.dispatcher().requestApproval(Bodies.read(ctx, api.json(), dev.ax.domain.protocol.ApprovalAsk.class)));
    }

    void runState(Context ctx) {
        report(ctx, api.dispatcher().runState(Bodies.read(ctx, api.json(), dev.ax.domain.protocol.RunStateQuery.class)));
    }

    private static void report(Context ctx, ReportAnswer answer) {
        ctx.status(answer.accepted() ? 200 : 409).json(answer);
    }
}
