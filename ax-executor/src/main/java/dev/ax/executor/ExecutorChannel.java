package dev.ax.executor;

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
import java.util.List;

/**
 * How an executor talks to a server. Two implementations with one meaning: over HTTP for an
 * executor process ({@code HttpExecutorChannel}), and by direct calls for the in-process
 * executor of the single-machine default. The executor never touches the database.
 *
 * <p>Calls throw {@link ChannelException} when the server cannot be reached; the agent retries
 * with backoff and keeps its processes running meanwhile (the lease gives it time).
 */
public interface ExecutorChannel {
    RegisterAnswer register(Register register);

    /** The lease the server gave at registration, for a channel whose waits should fit in it. */
    default void leaseKnown(long leaseMillis) {}

    /** Long-polls: returns as soon as work is claimed, or empty after {@code poll.waitMillis()}. */
    List<WorkItem> poll(Poll poll);

    HeartbeatAnswer heartbeat(Heartbeat heartbeat);

    ReportAnswer started(Started started);

    ReportAnswer log(LogChunk chunk);

    ReportAnswer complete(Completion completion);

    /** Asks for a person's approval mid-run; refused when the executor does not hold the run. */
    default ReportAnswer requestApproval(ApprovalAsk ask) {
        throw new ChannelException("this channel cannot ask for approval", null);
    }

    /** The state of a run this executor holds ({@code reason} = the state name); refused when it does not hold it. */
    default ReportAnswer runState(RunStateQuery query) {
        throw new ChannelException("this channel cannot look up run states", null);
    }

    /** The server could not be reached or answered with an error. */
    class ChannelException extends RuntimeException {
        public ChannelException(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
