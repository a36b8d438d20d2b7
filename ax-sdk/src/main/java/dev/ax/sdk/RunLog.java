package dev.ax.sdk;

import dev.ax.domain.protocol.LogChunk;
import dev.ax.domain.protocol.ReportAnswer;
import dev.ax.domain.protocol.RunRef;
import dev.ax.domain.secret.SecretMask;
import dev.ax.executor.Backoff;
import dev.ax.executor.ExecutorChannel;
import dev.ax.executor.ExecutorChannel.ChannelException;
import dev.ax.executor.LogLines;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingDeque;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Ships one run's log lines ({@link AxContext#log}) to the server. The handler only appends to a
 * buffer, so a slow or unreachable server never blocks the handler; a sender thread of its own
 * ships what is there, in order, as soon as it is there. While the server cannot be reached the
 * sender retries with backoff and the buffer keeps the newest {@link #MAX_BUFFERED_LINES} lines;
 * the next chunk then says how many were dropped. A refused chunk means the lease is gone: the log
 * stops and its owner is told.
 *
 * <p>A batch is at most {@link #BATCH_LINES} lines and {@link #BATCH_BYTES} bytes as the lines travel in JSON
 * ({@link LogLines#jsonBytes}); a longer line goes in pieces. So whatever a handler logs, no request outgrows the
 * server's body size limit. (The shell executor's {@code LogShipper} does the same for process output, and bounds
 * its buffer by bytes too; handler logs are lines a person wrote, so lines bound the buffer here.)
 */
final class RunLog {

    private static final Logger log = LoggerFactory.getLogger(RunLog.class);

    static final int BATCH_LINES = 200;
    static final int BATCH_BYTES = 64 * 1024;
    static final int MAX_BUFFERED_LINES = 10_000;
    static final String STDOUT = "stdout";
    static final String STDERR = "stderr";
    /** Marks the end of the log in the queue; compared by identity. */
    private static final Line END = new Line(STDOUT, "end");

    private record Line(String stream, String text) {}

    private final ExecutorChannel channel;
    private final String executorId;
    private final RunRef run;
    private final Consumer<String> onRefused;
    private final SecretMask mask;
    private final LinkedBlockingDeque<Line> queue = new LinkedBlockingDeque<>();
    private final AtomicLong dropped = new AtomicLong();
    private volatile boolean finishing;
    private volatile boolean aborted;
    private Thread sender; // guarded by this

    RunLog(ExecutorChannel channel, String executorId, RunRef run, Consumer<String> onRefused) {
        this(channel, executorId, run, onRefused, SecretMask.NONE);
    }

    /** @param mask the run's secrets ({@code WorkItem.masks}): each line is masked as it is appended, before it is queued */
    RunLog(ExecutorChannel channel, String executorId, RunRef run, Consumer<String> onRefused, SecretMask mask) {
        this.channel = channel;
        this.executorId = executorId;
        this.run = run;
        this.onRefused = onRefused;
        this.mask = mask;
    }

    /**
     * Appends text to the log, one line per line of text, with the run's secrets masked (a value of several lines line by
     * line). Never blocks on the server.
     */
    void append(String stream, String text) {
        if (aborted || finishing) {
            return; // a thread the handler started may still log after the handler returned
        }
        String all = String.valueOf(text);
        for (String line : all.isEmpty() ? List.of(all) : all.lines().toList()) {
            // Masked whole, then cut: a value is never split before it is masked.
            for (String piece : LogLines.pieces(mask.apply(line), BATCH_BYTES)) {
                queue.offerLast(new Line(stream, piece));
            }
            while (queue.size() > MAX_BUFFERED_LINES && queue.pollFirst() != null) {
                dropped.incrementAndGet();
            }
        }
    }

    /** Starts shipping: only once the server accepted "started", so it sees started, log, completion in that order. */
    synchronized void startSending() {
        if (sender == null && !aborted) {
            sender = Thread.ofVirtual()
                    .name("ax-log-" + run.instanceId() + "-" + run.attempt())
                    .start(this::ship);
        }
    }

    /**
     * No more lines will come: returns once everything was shipped (retrying through an outage as long as
     * it lasts), or the log was aborted or refused.
     */
    void finish() throws InterruptedException {
        finishing = true;
        queue.offerLast(END);
        startSending();
        Thread t;
        synchronized (this) {
            t = sender;
        }
        if (t != null) {
            t.join();
        }
    }

    /** Drops everything and stops (the server will refuse this run's lines anyway, or the worker is closing). */
    void abort() {
        aborted = true;
        queue.clear();
        Thread t;
        synchronized (this) {
            t = sender;
        }
        if (t != null && t != Thread.currentThread()) {
            t.interrupt(); // cuts a backoff pause or an HTTP call short
        }
    }

    private void ship() {
        Backoff backoff = new Backoff();
        List<Line> batch = new ArrayList<>();
        boolean failing = false;
        try {
            while (!aborted) {
                if (batch.isEmpty()) {
                    if (!nextBatch(batch)) {
                        return;
                    }
                    if (batch.isEmpty()) {
                        continue;
                    }
                }
                try {
                    for (LogChunk chunk : chunks(batch)) {
                        ReportAnswer answer = channel.log(chunk);
                        if (!answer.accepted()) {
                            log.info("log of run {} refused: {}; dropping it", run, answer.reason());
                            abort();
                            onRefused.accept(answer.reason());
                            return;
                        }
                        batch.subList(0, chunk.lines().size()).clear(); // only now: a chunk that failed is sent again
                    }
                    backoff.reset();
                    failing = false;
                } catch (ChannelException e) {
                    if (aborted) {
                        return;
                    }
                    if (!failing) {
                        log.warn("cannot ship the log of run {}: {}; buffering and retrying", run, e.getMessage());
                        failing = true;
                    }
                    backoff.pause();
                }
            }
        } catch (InterruptedException e) {
            // only abort() interrupts the sender
        }
    }

    /** Waits for at least one line and takes up to a batch; false at the end of the log. */
    private boolean nextBatch(List<Line> batch) throws InterruptedException {
        Line first = queue.pollFirst(1, TimeUnit.SECONDS);
        if (first == null) {
            return !aborted; // nothing yet: look again
        }
        if (first == END) {
            return false;
        }
        long lost = dropped.getAndSet(0);
        if (lost > 0) {
            batch.add(new Line(STDERR, "[ax] " + lost + " log lines dropped: server unreachable"));
        }
        batch.add(first);
        long bytes = batch.stream()
                .mapToLong(line -> LogLines.jsonBytes(line.text()))
                .sum();
        while (batch.size() < BATCH_LINES) {
            Line next = queue.peekFirst();
            if (next == null || next == END || bytes + LogLines.jsonBytes(next.text()) > BATCH_BYTES) {
                break;
            }
            bytes += LogLines.jsonBytes(next.text());
            batch.add(queue.pollFirst());
        }
        return true;
    }

    /** Consecutive lines of one stream make one chunk, so the order of the lines is kept across streams. */
    private List<LogChunk> chunks(List<Line> batch) {
        List<LogChunk> chunks = new ArrayList<>();
        int start = 0;
        for (int i = 1; i <= batch.size(); i++) {
            if (i == batch.size() || !batch.get(i).stream().equals(batch.get(start).stream())) {
                chunks.add(new LogChunk(
                        executorId,
                        run,
                        batch.get(start).stream(),
                        batch.subList(start, i).stream().map(Line::text).toList()));
                start = i;
            }
        }
        return chunks;
    }
}
