package dev.ax.sdk;

import dev.ax.domain.protocol.Completion;
import dev.ax.domain.protocol.ReportAnswer;
import dev.ax.domain.protocol.RunRef;
import dev.ax.domain.protocol.Started;
import dev.ax.domain.protocol.WorkItem;
import dev.ax.domain.secret.SecretMask;
import dev.ax.executor.Backoff;
import dev.ax.executor.ExecutorChannel.ChannelException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One claimed run on this worker, from the poll that claimed it until its completion was delivered
 * (or it was dropped): reports "started", calls the handler on the calling thread, ships its log,
 * reports how it ended.
 *
 * <p>Stopping a run is interrupting its handler, so interrupts are aimed with care: {@link #abandon}
 * and the timeout interrupt the thread only while it is inside the handler ({@link Phase#HANDLING},
 * checked under the run's lock), never while it reports; and the flag is cleared once the handler
 * is left. Exactly one completion is reported per run ({@link #reported}), by the handler thread or,
 * when the handler ignores the timeout's interruption, by the timeout's watchdog.
 */
final class HandlerRun {

    private static final Logger log = LoggerFactory.getLogger(HandlerRun.class);

    enum Phase {
        WAITING,
        HANDLING,
        ENDED
    }

    static final String SDK = "sdk";

    private final AxWorker worker;
    private final WorkItem item;
    private final AxHandler handler; // null when no handler of that name is registered, or not an sdk action
    private final SecretMask mask;
    private final RunLog runLog;
    private final RunContext context;
    private final AtomicBoolean reported = new AtomicBoolean();

    private Phase phase = Phase.WAITING; // guarded by this
    private Thread thread; // guarded by this; the handler's, while HANDLING
    private String abandonReason; // guarded by this; non-null once nothing more may be reported
    private volatile boolean timedOut;

    HandlerRun(AxWorker worker, WorkItem item, AxHandler handler) {
        this.worker = worker;
        this.item = item;
        this.handler = handler;
        this.mask = SecretMask.of(item.masks());
        this.runLog = new RunLog(
                worker.channel(), worker.executorId(), item.ref(), reason -> abandon("log refused: " + reason), mask);
        this.context = new RunContext(
                item, runLog, this::cancelled, worker.idempotencyStore(), worker.channel(), worker.executorId());
    }

    RunRef ref() {
        return item.ref();
    }

    WorkItem item() {
        return item;
    }

    /** Runs the attempt to its end on the calling thread; returns without a report when it was abandoned. */
    void runToEnd() throws InterruptedException {
        if (abandoned()) {
            return; // taken back before it started
        }
        if (!SDK.equals(item.actionType())) {
            report(Outcomes.unsupported(worker.executorId(), ref(), item.actionType()));
            return;
        }
        if (handler == null) {
            report(Outcomes.noHandler(worker.executorId(), ref(), item.handler(), worker.handlerNames()));
            return;
        }
        Started started =
                new Started(worker.executorId(), ref(), ProcessHandle.current().pid());
        Optional<ReportAnswer> answer = deliver("start", () -> worker.channel().started(started));
        if (answer.isEmpty()) {
            return;
        }
        if (!answer.get().accepted()) {
            abandon("start refused: " + answer.get().reason());
            return;
        }
        runLog.startSending();
        Object result = null;
        Throwable failure = null;
        ScheduledFuture<?> deadline = null;
        try {
            if (enterHandler()) {
                deadline = scheduleTimeout(); // only now: a timeout that fired earlier would find no handler to stop
                result = handler.handle(context);
            }
        } catch (Throwable t) {
            failure = t;
        } finally {
            leaveHandler();
            if (deadline != null) {
                deadline.cancel(false);
            }
        }
        if (abandoned()) {
            log.info("run {} ({}) ended without a report: {}", ref(), item.handler(), abandonReason());
            return;
        }
        if (reported.get()) {
            log.warn(
                    "handler '{}' of run {} returned after its run was reported as timed out; its result is dropped",
                    item.handler(),
                    ref());
            return;
        }
        Completion completion;
        if (timedOut) {
            completion = Outcomes.timeout(worker.executorId(), ref(), item.handler(), item.timeoutSeconds(), false);
        } else if (failure != null) {
            runLog.append(RunLog.STDERR, "[ax] handler '" + item.handler() + "' failed:");
            Outcomes.trace(failure).forEach(line -> runLog.append(RunLog.STDERR, line));
            completion = Outcomes.failure(worker.executorId(), ref(), failure);
        } else {
            completion = Outcomes.success(worker.executorId(), ref(), result);
        }
        report(completion);
    }

    /**
     * Stops the run for good: interrupts its handler, drops its log, and makes sure nothing more is
     * reported about it. The first reason wins. Safe from any thread.
     */
    synchronized void abandon(String reason) {
        if (abandonReason != null) {
            return;
        }
        abandonReason = reason;
        if (phase == Phase.HANDLING) {
            thread.interrupt();
        }
        runLog.abort();
    }

    synchronized boolean abandoned() {
        return abandonReason != null;
    }

    synchronized String abandonReason() {
        return abandonReason;
    }

    boolean cancelled() {
        return timedOut || abandoned() || !worker.isRunning();
    }

    /** Sends the completion once (log first, its message masked: an exception's message may quote a secret), then lets go of the lease. */
    private void report(Completion unmasked) throws InterruptedException {
        Completion completion = new Completion(
                unmasked.executorId(),
                unmasked.run(),
                unmasked.success(),
                unmasked.failureKind(),
                unmasked.exitCode(),
                mask.apply(unmasked.message()),
                unmasked.pid(),
                unmasked.tail());
        if (!reported.compareAndSet(false, true)) {
            return;
        }
        try {
            runLog.finish();
            Optional<ReportAnswer> answer =
                    deliver("completion", () -> worker.channel().complete(completion));
            if (answer.isEmpty()) {
                log.info(
                        "run {} dropped before its completion was delivered: {}",
                        ref(),
                        abandoned() ? abandonReason() : "worker closing");
            } else if (!answer.get().accepted()) {
                log.info("completion of run {} refused: {}", ref(), answer.get().reason());
            } else {
                log.debug("run {} reported: success={} {}", ref(), completion.success(), completion.message());
            }
        } finally {
            worker.released(this);
        }
    }

    /**
     * Sends one report about this run, retrying with backoff while the server cannot be reached. Empty when the
     * report stopped mattering first: the run was abandoned, or the worker is closing and the server is away.
     */
    private Optional<ReportAnswer> deliver(String what, Supplier<ReportAnswer> send) throws InterruptedException {
        Backoff backoff = new Backoff();
        while (!abandoned()) {
            try {
                return Optional.of(send.get());
            } catch (ChannelException e) {
                if (abandoned() || !worker.isRunning()) {
                    break;
                }
                long pause = backoff.next();
                log.warn("{} of run {} not delivered: {}; retrying in {} ms", what, ref(), e.getMessage(), pause);
                Thread.sleep(pause);
            }
        }
        return Optional.empty();
    }

    private synchronized boolean enterHandler() {
        if (abandonReason != null) {
            return false;
        }
        thread = Thread.currentThread();
        phase = Phase.HANDLING;
        return true;
    }

    private void leaveHandler() {
        synchronized (this) {
            phase = Phase.ENDED;
            thread = null;
        }
        Thread.interrupted(); // an interrupt aimed at the handler must not cut the reports short
    }

    private ScheduledFuture<?> scheduleTimeout() {
        Long seconds = item.timeoutSeconds();
        if (seconds == null || seconds <= 0) {
            return null;
        }
        return worker.timer().schedule(this::timeOut, seconds, TimeUnit.SECONDS);
    }

    /** The task's timeout passed: interrupt the handler; if it is still in there after the grace period, report anyway. */
    private void timeOut() {
        synchronized (this) {
            if (phase != Phase.HANDLING || abandonReason != null) {
                return;
            }
            timedOut = true;
            thread.interrupt();
        }
        Duration grace = worker.shutdownGrace();
        worker.timer().schedule(this::reportIfStuck, grace.toMillis(), TimeUnit.MILLISECONDS);
    }

    private void reportIfStuck() {
        synchronized (this) {
            if (phase != Phase.HANDLING || abandonReason != null) {
                return;
            }
        }
        log.warn(
                "handler '{}' of run {} ignores its interruption; reporting the timeout while it still runs",
                item.handler(),
                ref());
        Thread.ofVirtual().name("ax-timeout-" + ref().instanceId()).start(() -> {
            try {
                report(Outcomes.timeout(worker.executorId(), ref(), item.handler(), item.timeoutSeconds(), true));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
    }
}
