package dev.ax.server;

import dev.ax.domain.protocol.ApprovalAsk;
import dev.ax.domain.protocol.Completion;
import dev.ax.domain.protocol.Heartbeat;
import dev.ax.domain.protocol.HeartbeatAnswer;
import dev.ax.domain.protocol.LogChunk;
import dev.ax.domain.protocol.Poll;
import dev.ax.domain.protocol.Register;
import dev.ax.domain.protocol.RegisterAnswer;
import dev.ax.domain.protocol.ReportAnswer;
import dev.ax.domain.protocol.RunStateQuery;
import dev.ax.domain.protocol.Started;
import dev.ax.domain.protocol.WorkItem;
import dev.ax.executor.ExecutorChannel;
import dev.ax.scheduler.Dispatcher;
import java.util.List;
import java.util.function.Supplier;

/**
 * The executor protocol by direct calls, for the in-process executor of the single-machine
 * default: the same dispatcher, the same leases and fencing as a remote executor, minus HTTP.
 * Failures come back as {@link ChannelException}, as they would over HTTP (where they are a 5xx),
 * so the agent rides out a database outage the same way in both cases.
 */
final class InProcessChannel implements ExecutorChannel {
    private final Dispatcher dispatcher;

    InProcessChannel(Dispatcher dispatcher) {
        this.dispatcher = dispatcher;
    }

    @Override
    public RegisterAnswer register(Register register) {
        return call("register", () -> dispatcher.register(register));
    }

    @Override
    public List<WorkItem> poll(Poll poll) {
        return call("poll", () -> {
            try {
                return dispatcher.poll(poll);
            } catch (InterruptedException e) {
                // The agent interrupts its poll thread when it closes; keep the flag for its loop.
                Thread.currentThread().interrupt();
                throw new ChannelException("poll interrupted", e);
            }
        });
    }

    @Override
    public HeartbeatAnswer heartbeat(Heartbeat heartbeat) {
        return call("heartbeat", () -> dispatcher.heartbeat(heartbeat));
    }

    @Override
    public ReportAnswer started(Started started) {
        return call("started", () -> dispatcher.started(started));
    }

    @Override
    public ReportAnswer log(LogChunk chunk) {
        return call("log", () -> dispatcher.log(chunk));
    }

    @Override
    public ReportAnswer complete(Completion completion) {
        return call("complete", () -> dispatcher.complete(completion));
    }

    @Override
    public ReportAnswer requestApproval(ApprovalAsk ask) {
        return call("approval-request", () -> dispatcher.requestApproval(ask));
    }

    @Override
    public ReportAnswer runState(RunStateQuery query) {
        return call("run-state", () -> dispatcher.runState(query));
    }

    private static <T> T call(String what, Supplier<T> call) {
        try {
            return call.get();
        } catch (ChannelException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new ChannelException(what + " failed on the server: " + e.getMessage(), e);
        }
    }
}
