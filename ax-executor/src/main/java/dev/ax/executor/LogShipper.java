package dev.ax.executor;

import dev.ax.domain.protocol.LogChunk;
import dev.ax.domain.protocol.ReportAnswer;
import dev.ax.domain.protocol.RunRef;
import dev.ax.executor.ExecutorChannel.ChannelException;
import dev.ax.executor.shell.OutputSink;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Streams one run's output to the server in batches.
 *
 * <p>The shell's reader threads call {@link #line} and only append to a buffer: a slow or unreachable server must
 * never stall the reading of a process's pipes (a full pipe blocks the process itself). A sender thread of its own
 * ships the buffer as {@link LogChunk}s: as soon as {@link Limits#batchLines} lines or {@link Limits#batchBytes} bytes
 * are waiting, otherwise every {@link Limits#flushEvery}. Bytes are counted as the lines travel, inside JSON
 * ({@link LogLines#jsonBytes}), and a line longer than a batch is cut into pieces, so a chunk, and the completion
 * that carries the last batch, stay far below the server's request size limit whatever a process prints. At the end, {@link #handOver()} returns what is left (at most
 * one batch) for the run's completion to carry: the server stores it with the outcome, in one transaction, so the log
 * is complete when the outcome is recorded and a short run's output costs no commit of its own ({@link #finish()}
 * ships everything instead). One sender per run keeps that run's chunks in order without any further coordination.
 *
 * <p>While the server cannot be reached the sender retries with backoff and the buffer grows up to
 * {@link Limits#maxBufferedLines} / {@link Limits#maxBufferedBytes}; beyond that the oldest buffered lines are dropped
 * and the next batch starts with "[ax] N lines dropped: server unreachable" (on stderr). The batch already in flight is
 * kept, so the server ends up with the head and the tail of the output. A retried chunk may arrive twice if the
 * server stored it but its answer was lost.
 *
 * <p>A refused chunk means the run's lease is gone: the shipper stops, drops what it holds and tells its owner.
 */
final class LogShipper implements OutputSink {

    private static final Logger log = LoggerFactory.getLogger(LogShipper.class);

    /** When to send and how much to keep; bytes as the lines take them in JSON ({@link LogLines#jsonBytes}). */
    record Limits(int batchLines, int batchBytes, Duration flushEvery, int maxBufferedLines, long maxBufferedBytes) {
        static final Limits DEFAULT = new Limits(200, 64 * 1024, Duration.ofMillis(250), 10_000, 8L * 1024 * 1024);
    }

    private record Entry(Stream stream, String line, int bytes) {}

    private final ExecutorChannel channel;
    private final String executorId;
    private final RunRef run;
    private final Limits limits;
    private final Consumer<String> onRefused;
    private final LongAdder errors;

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private final Deque<Entry> queue = new ArrayDeque<>(); // guarded by lock
    private long queuedBytes; // guarded by lock
    private long dropped; // guarded by lock; lines lost since the last batch
    private boolean finishing; // guarded by lock
    private boolean handingOver; // guarded by lock; the sender leaves the last batch alone
    private Thread sender; // guarded by lock
    private volatile boolean aborted;

    /**
     * @param onRefused called (on the sender thread) with the server's reason when a chunk is refused
     * @param errors    counts unexpected failures (bugs), which the agent exposes
     */
    LogShipper(
            ExecutorChannel channel,
            String executorId,
            RunRef run,
            Limits limits,
            Consumer<String> onRefused,
            LongAdder errors) {
        this.channel = channel;
        this.executorId = executorId;
        this.run = run;
        this.limits = limits;
        this.onRefused = onRefused;
        this.errors = errors;
    }

    @Override
    public void line(Stream stream, String line) {
        // A line too long for one batch goes in pieces: no request may outgrow the server's body size limit.
        List<String> pieces = LogLines.pieces(line, limits.batchBytes());
        lock.lock();
        try {
            if (aborted) {
                return;
            }
            for (String piece : pieces) {
                Entry entry = new Entry(stream, piece, LogLines.jsonBytes(piece));
                queue.addLast(entry);
                queuedBytes += entry.bytes();
            }
            while (queue.size() > limits.maxBufferedLines() || queuedBytes > limits.maxBufferedBytes()) {
                queuedBytes -= queue.removeFirst().bytes();
                dropped++;
            }
            if (batchReady()) {
                changed.signal();
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * Starts shipping. Lines arriving before this are buffered: the agent starts the sender only once the server
     * accepted the run's "started" report (or once the process ended, when the completion carries its start), so the
     * server hears of the start before the log and the completion.
     */
    void startSending() {
        lock.lock();
        try {
            if (sender == null && !aborted) {
                sender = Thread.ofVirtual()
                        .name("ax-log-" + run.instanceId() + "-" + run.attempt())
                        .start(this::ship);
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * No more lines will come: ships everything still buffered and returns when it is on the server (retrying
     * through an outage for as long as it lasts), or when the shipper was aborted or refused.
     */
    void finish() throws InterruptedException {
        endSending(false);
    }

    /**
     * Tells the sender no more lines will come ({@code handOver}: and to leave the last batch alone) and waits until it
     * has shipped what it should and stopped; starts one first when there is something to ship and none runs yet.
     */
    private void endSending(boolean handOver) throws InterruptedException {
        lock.lock();
        try {
            finishing = true;
            handingOver = handOver;
            changed.signal();
        } finally {
            lock.unlock();
        }
        if (!handOver || !fitsOneBatch()) {
            startSending();
        }
        Thread t;
        lock.lock();
        try {
            t = sender;
        } finally {
            lock.unlock();
        }
        if (t != null) {
            t.join();
        }
    }

    /**
     * No more lines will come, and the run's completion will carry what is left: waits until the sender has shipped all
     * but the last batch (or nothing, when at most a batch is buffered) and stopped, then returns those lines as chunks,
     * in order. Empty when nothing is left, or the shipper was aborted or refused.
     */
    List<LogChunk> handOver() throws InterruptedException {
        endSending(true);
        lock.lock();
        try {
            return aborted || !hasLines() ? List.of() : chunks(takeBatch());
        } finally {
            lock.unlock();
        }
    }

    /** Drops everything and stops the sender (the server will refuse this run's logs anyway, or we are closing). */
    void abort() {
        aborted = true;
        Thread t;
        lock.lock();
        try {
            queue.clear();
            queuedBytes = 0;
            dropped = 0;
            changed.signal();
            t = sender;
        } finally {
            lock.unlock();
        }
        if (t != null && t != Thread.currentThread()) {
            t.interrupt(); // cuts a backoff pause or an HTTP call short
        }
    }

    boolean aborted() {
        return aborted;
    }

    private void ship() {
        Backoff backoff = new Backoff();
        Deque<LogChunk> pending = new ArrayDeque<>();
        boolean failing = false;
        try {
            while (!aborted) {
                if (pending.isEmpty()) {
                    List<Entry> batch = nextBatch();
                    if (batch == null) {
                        return; // finished and empty, or aborted
                    }
                    pending.addAll(chunks(batch));
                }
                try {
                    ReportAnswer answer = channel.log(pending.peekFirst());
                    if (!answer.accepted()) {
                        refused(answer.reason());
                        return;
                    }
                    pending.removeFirst(); // only now: a chunk that failed is sent again, never skipped
                    backoff.reset();
                    if (failing) {
                        log.info("logs of run {} reach the server again", run);
                        failing = false;
                    }
                } catch (ChannelException e) {
                    if (aborted) {
                        return;
                    }
                    if (!failing) {
                        log.warn(
                                "cannot ship logs of run {}: {}; buffering (up to {} lines) and retrying",
                                run,
                                e.getMessage(),
                                limits.maxBufferedLines());
                        failing = true;
                    }
                    backoff.pause();
                } catch (RuntimeException e) {
                    errors.increment();
                    log.error("unexpected failure shipping logs of run {}", run, e);
                    backoff.pause();
                }
            }
        } catch (InterruptedException e) {
            // Only abort() interrupts the sender: stop quietly.
        }
    }

    private void refused(String reason) {
        log.info("logs of run {} refused: {}; dropping them", run, reason);
        abort();
        onRefused.accept(reason);
    }

    /** Waits until a batch is due and takes it; null when there is nothing more to send (finished or aborted). */
    private List<Entry> nextBatch() throws InterruptedException {
        lock.lock();
        try {
            long waitNanos = limits.flushEvery().toNanos();
            while (!aborted && !finishing && !batchReady()) {
                if (waitNanos <= 0) {
                    if (hasLines()) {
                        break; // the periodic flush
                    }
                    waitNanos = limits.flushEvery().toNanos();
                }
                waitNanos = changed.awaitNanos(waitNanos);
            }
            if (aborted || !hasLines() || (handingOver && fitsOneBatch())) {
                return null;
            }
            return takeBatch();
        } finally {
            lock.unlock();
        }
    }

    /** Takes the next batch off the buffer: the note of dropped lines first, then up to a batch of lines. */
    private List<Entry> takeBatch() {
        lock.lock();
        try {
            List<Entry> batch = new ArrayList<>();
            if (dropped > 0) {
                batch.add(new Entry(Stream.STDERR, "[ax] " + dropped + " lines dropped: server unreachable", 0));
                dropped = 0;
            }
            int lines = 0;
            long bytes = 0;
            while (!queue.isEmpty()
                    && lines < limits.batchLines()
                    && (lines == 0 || bytes + queue.peekFirst().bytes() <= limits.batchBytes())) {
                Entry e = queue.removeFirst();
                queuedBytes -= e.bytes();
                bytes += e.bytes();
                lines++;
                batch.add(e);
            }
            return batch;
        } finally {
            lock.unlock();
        }
    }

    private boolean batchReady() {
        return queue.size() >= limits.batchLines() || queuedBytes >= limits.batchBytes();
    }

    /** Whether what is buffered goes in one batch (the handed-over tail is one). */
    private boolean fitsOneBatch() {
        lock.lock();
        try {
            return queue.size() < limits.batchLines() && queuedBytes <= limits.batchBytes();
        } finally {
            lock.unlock();
        }
    }

    private boolean hasLines() {
        return !queue.isEmpty() || dropped > 0;
    }

    /**
     * One chunk per stream, in the order the streams first appear in the batch. stdout and stderr are not ordered
     * relative to each other anyway (two pipes, two readers), and splitting at every switch would turn interleaved
     * output into one request per line.
     */
    private List<LogChunk> chunks(List<Entry> batch) {
        Map<Stream, List<String>> byStream = new LinkedHashMap<>();
        for (Entry e : batch) {
            byStream.computeIfAbsent(e.stream(), s -> new ArrayList<>()).add(e.line());
        }
        List<LogChunk> chunks = new ArrayList<>(byStream.size());
        byStream.forEach((stream, lines) ->
                chunks.add(new LogChunk(executorId, run, stream.name().toLowerCase(Locale.ROOT), lines)));
        return chunks;
    }
}
