package dev.ax.executor;

import dev.ax.domain.protocol.Completion;
import dev.ax.domain.protocol.Heartbeat;
import dev.ax.domain.protocol.HeartbeatAnswer;
import dev.ax.domain.protocol.LogChunk;
import dev.ax.domain.protocol.Poll;
import dev.ax.domain.protocol.Register;
import dev.ax.domain.protocol.RegisterAnswer;
import dev.ax.domain.protocol.ReportAnswer;
import dev.ax.domain.protocol.RunRef;
import dev.ax.domain.protocol.Started;
import dev.ax.domain.protocol.WorkItem;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * An in-memory server: a queue of work, a record of everything the executor said, and knobs to make calls fail or be
 * refused. Thread-safe; every list is a snapshot-friendly concurrent list.
 */
final class FakeChannel implements ExecutorChannel {

    final BlockingQueue<WorkItem> work = new LinkedBlockingQueue<>();
    final List<Register> registers = new CopyOnWriteArrayList<>();
    final List<Poll> polls = new CopyOnWriteArrayList<>();
    final List<Heartbeat> heartbeats = new CopyOnWriteArrayList<>();
    final List<Started> started = new CopyOnWriteArrayList<>();
    final List<LogChunk> logs = new CopyOnWriteArrayList<>();
    /** Completions the server accepted. */
    final List<Completion> completions = new CopyOnWriteArrayList<>();
    /** Every complete() call, including failed ones. */
    final AtomicInteger completeCalls = new AtomicInteger();
    /** What happened, in order: "started 1", "log 1", "complete 1". */
    final List<String> events = new CopyOnWriteArrayList<>();

    /** Runs the next heartbeat answers tell the executor to abandon. */
    final Set<RunRef> abandon = ConcurrentHashMap.newKeySet();

    volatile long heartbeatMillis = 100;
    volatile Function<Started, ReportAnswer> startedAnswer = s -> ReportAnswer.OK;
    volatile Function<Completion, ReportAnswer> completeAnswer = c -> ReportAnswer.OK;
    volatile Function<LogChunk, ReportAnswer> logAnswer = c -> ReportAnswer.OK;
    /** How many of the next calls of each kind throw a ChannelException, as if the server were down. */
    final AtomicInteger failPolls = new AtomicInteger();

    final AtomicInteger failCompletes = new AtomicInteger();
    final AtomicInteger failLogs = new AtomicInteger();
    /** Runs inside every poll first, on the agent's poll thread (e.g. I/O that close() must not tear). */
    volatile Runnable duringPoll = () -> {};

    /** Runs started and not yet completed, as the server sees them, and the most ever seen at once. */
    private final AtomicInteger running = new AtomicInteger();

    final AtomicInteger maxRunning = new AtomicInteger();

    @Override
    public RegisterAnswer register(Register register) {
        registers.add(register);
        return new RegisterAnswer(30_000, heartbeatMillis, List.of());
    }

    @Override
    public List<WorkItem> poll(Poll poll) {
        polls.add(poll);
        duringPoll.run();
        if (failPolls.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
            throw new ChannelException("poll: server down (fake)", null);
        }
        try {
            WorkItem first = work.poll(poll.waitMillis(), TimeUnit.MILLISECONDS);
            if (first == null) {
                return List.of();
            }
            List<WorkItem> items = new ArrayList<>(List.of(first));
            work.drainTo(items, poll.max() - 1);
            return items;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ChannelException("poll interrupted", e);
        }
    }

    @Override
    public HeartbeatAnswer heartbeat(Heartbeat heartbeat) {
        heartbeats.add(heartbeat);
        List<RunRef> lost = heartbeat.held().stream().filter(abandon::contains).toList();
        return new HeartbeatAnswer(
                heartbeat.held().stream().filter(r -> !lost.contains(r)).toList(), lost);
    }

    @Override
    public ReportAnswer started(Started s) {
        started.add(s);
        events.add("started " + s.run().instanceId());
        ReportAnswer answer = startedAnswer.apply(s);
        if (answer.accepted()) {
            maxRunning.accumulateAndGet(running.incrementAndGet(), Math::max);
        }
        return answer;
    }

    @Override
    public ReportAnswer log(LogChunk chunk) {
        if (failLogs.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
            throw new ChannelException("log: server down (fake)", null);
        }
        ReportAnswer answer = logAnswer.apply(chunk);
        if (answer.accepted()) {
            logs.add(chunk);
            events.add("log " + chunk.run().instanceId());
        }
        return answer;
    }

    @Override
    public ReportAnswer complete(Completion completion) {
        completeCalls.incrementAndGet();
        if (failCompletes.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
            throw new ChannelException("complete: server down (fake)", null);
        }
        ReportAnswer answer = completeAnswer.apply(completion);
        if (answer.accepted()) {
            running.decrementAndGet();
            logs.addAll(completion.tail()); // as the server does: the output it carries, with the outcome
            completions.add(completion);
            events.add("complete " + completion.run().instanceId());
        }
        return answer;
    }

    List<Completion> completionsOf(long instanceId) {
        return completions.stream()
                .filter(c -> c.run().instanceId() == instanceId)
                .toList();
    }

    List<String> linesOf(long instanceId, String stream) {
        return logs.stream()
                .filter(c -> c.run().instanceId() == instanceId && c.stream().equals(stream))
                .flatMap(c -> c.lines().stream())
                .toList();
    }

    Started startedOf(long instanceId) {
        return started.stream()
                .filter(s -> s.run().instanceId() == instanceId)
                .findFirst()
                .orElseThrow();
    }
}
