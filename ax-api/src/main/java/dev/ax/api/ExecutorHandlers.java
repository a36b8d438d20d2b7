package dev.ax.api;

import dev.ax.domain.protocol.ApprovalAsk;
import dev.ax.domain.protocol.Completion;
import dev.ax.domain.protocol.Heartbeat;
import dev.ax.domain.protocol.LogChunk;
import dev.ax.domain.protocol.Poll;
import dev.ax.domain.protocol.Register;
import dev.ax.domain.protocol.ReportAnswer;
import dev.ax.domain.protocol.RunStateQuery;
import dev.ax.domain.protocol.Started;
import dev.ax.domain.protocol.WorkItem;
import dev.ax.domain.task.ValidationException;
import io.javalin.http.Context;
import java.lang.reflect.RecordComponent;
import java.util.List;
import java.util.Set;

/**
 * The executor protocol over HTTP: each body is a {@code dev.ax.domain.protocol} record, each
 * answer the dispatcher's. A refused report (the executor lost the attempt's lease) is a 409
 * whose body is still the {@link ReportAnswer}, so the executor learns why.
 */
final class ExecutorHandlers {
    /** The poll answer's body. */
    record PollAnswer(List<WorkItem> items) {}

    /** What every protocol record that has them must carry: who is speaking (in which session), and about which run and stream. */
    private static final Set<String> REQUIRED = Set.of("executorId", "session", "run", "stream");

    private final ApiContext api;
    private final ExecutorBindings bindings;

    ExecutorHandlers(ApiContext api) {
        this.api = api;
        this.bindings = new ExecutorBindings(api == null ? null : api.store());
    }

    /** The body as a protocol record; a missing required field is a 400 naming it, not a failure deep in the dispatcher. */
    private <T extends Record> T body(Context ctx, Class<T> type) {
        T value = Bodies.read(ctx, api.json(), type);
        for (RecordComponent component : type.getRecordComponents()) {
            if (REQUIRED.contains(component.getName()) && value(component, value) == null) {
                throw new ValidationException(component.getName(), "is required");
            }
        }
        return value;
    }

    /** An executor serves at least one group: with none it would have nothing to poll for. */
    private static void requireGroups(List<String> groups) {
        if (groups.isEmpty()) {
            throw new ValidationException("groups", "must name at least one group");
        }
    }

    private static Object value(RecordComponent component, Record record) {
        try {
            return component.getAccessor().invoke(record);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("a record's accessor is public", e);
        }
    }

    void register(Context ctx) {
        Register r = body(ctx, Register.class);
        requireGroups(r.groups());
        bindings.checkRegister(Auth.principal(ctx), r.executorId(), r.groups());
        var answer = api.dispatcher().register(r);
        bindings.bind(Auth.principal(ctx), r.executorId());
        ctx.json(answer);
    }

    /** Blocks up to {@code waitMillis}: Jetty runs requests on virtual threads, so waiting executors cost no platform thread. */
    void poll(Context ctx) throws InterruptedException {
        Poll p = body(ctx, Poll.class);
        requireGroups(p.groups());
        bindings.checkGroups(Auth.principal(ctx), p.groups());
        bindings.checkReport(Auth.principal(ctx), p.executorId());
        ctx.json(new PollAnswer(api.dispatcher().poll(p)));
    }

    void heartbeat(Context ctx) {
        Heartbeat h = body(ctx, Heartbeat.class);
        bindings.checkReport(Auth.principal(ctx), h.executorId());
        ctx.json(api.dispatcher().heartbeat(h));
    }

    void started(Context ctx) {
        Started s = body(ctx, Started.class);
        bindings.checkReport(Auth.principal(ctx), s.executorId());
        report(ctx, api.dispatcher().started(s));
    }

    void log(Context ctx) {
        LogChunk l = body(ctx, LogChunk.class);
        bindings.checkReport(Auth.principal(ctx), l.executorId());
        report(ctx, api.dispatcher().log(l));
    }

    void complete(Context ctx) {
        Completion c = body(ctx, Completion.class);
        bindings.checkReport(Auth.principal(ctx), c.executorId());
        report(ctx, api.dispatcher().complete(c));
    }

    void requestApproval(Context ctx) {
        ApprovalAsk a = body(ctx, ApprovalAsk.class);
        bindings.checkReport(Auth.principal(ctx), a.executorId());
        report(ctx, api.dispatcher().requestApproval(a));
    }

    void runState(Context ctx) {
        RunStateQuery q = body(ctx, RunStateQuery.class);
        bindings.checkReport(Auth.principal(ctx), q.executorId());
        report(ctx, api.dispatcher().runState(q));
    }

    private static void report(Context ctx, ReportAnswer answer) {
        ctx.status(answer.accepted() ? 200 : 409).json(answer);
    }
}
