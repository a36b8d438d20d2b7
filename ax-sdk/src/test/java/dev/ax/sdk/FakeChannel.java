package dev.ax.sdk;

import dev.ax.domain.protocol.Completion;
import dev.ax.domain.protocol.Heartbeat;
import dev.ax.domain.protocol.HeartbeatAnswer;
import dev.ax.domain.protocol.LogChunk;
import dev.ax.domain.protocol.Poll;
import dev.ax.domain.protocol.Register;
import dev.ax.domain.protocol.RegisterAnswer;
import dev.ax.domain.protocol.ReportAnswer;
import dev.ax.domain.protocol.Started;
import dev.ax.domain.protocol.WorkItem;
import dev.ax.executor.ExecutorChannel;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;

/** A server stand-in for unit tests of the log: records chunks; {@link #onLog} decides each answer. */
final class FakeChannel implements ExecutorChannel {
    final List<LogChunk> chunks = new CopyOnWriteArrayList<>();
    volatile Function<LogChunk, ReportAnswer> onLog = chunk -> ReportAnswer.OK;

    static WorkItem item(long id, String handler) {
        return new WorkItem(
                id, 1, "task", 1, "ax-" + id, null, "sdk", null, Map.of(), null, null, 30_000, null, handler, Map.of());
    }

    /** Every line received, as "stream: text". */
    List<String> lines() {
        return chunks.stream()
                .flatMap(c -> c.lines().stream().map(l -> c.stream() + ": " + l))
                .toList();
    }

    @Override
    public ReportAnswer log(LogChunk chunk) {
        ReportAnswer answer = onLog.apply(chunk); // may throw ChannelException: "not delivered"
        if (answer.accepted()) {
            chunks.add(chunk);
        }
        return answer;
    }

    @Override
    public RegisterAnswer register(Register register) {
        throw new UnsupportedOperationException();
    }

    @Override
    public List<WorkItem> poll(Poll poll) {
        throw new UnsupportedOperationException();
    }

    @Override
    public HeartbeatAnswer heartbeat(Heartbeat heartbeat) {
        throw new UnsupportedOperationException();
    }

    @Override
    public ReportAnswer started(Started started) {
        throw new UnsupportedOperationException();
    }

    @Override
    public ReportAnswer complete(Completion completion) {
        throw new UnsupportedOperationException();
    }
}
