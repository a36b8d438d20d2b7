package dev.ax.executor;

import dev.ax.domain.protocol.Completion;
import dev.ax.domain.protocol.LogChunk;
import dev.ax.domain.protocol.ReportAnswer;
import dev.ax.domain.protocol.Started;
import dev.ax.domain.protocol.WorkItem;
import dev.ax.domain.run.FailureKind;
import dev.ax.domain.secret.SecretMask;
import dev.ax.executor.ExecutorChannel.ChannelException;
import dev.ax.executor.reaper.Reaper;
import dev.ax.executor.shell.OutputSink;
import dev.ax.executor.shell.RunningShell;
import dev.ax.executor.shell.ShellCommand;
import dev.ax.executor.shell.ShellResult;
import dev.ax.executor.shell.ShellRunner;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The life of one run on this executor, from "claimed" to "reported". The {@link ExecutorAgent} decides when runs
 * start and stop; this class does the steps in between and talks to the server about that one run.
 *
 * <p>Order of reports: started (with the pid), then the log, then the completion, so the server never records an
 * outcome before the output that explains it. Reports are retried through outages for as long as the run still
 * matters; a refusal (the lease is gone) ends the run without any further report.
 */
final class RunWorker {

    private static final Logger log = LoggerFactory.getLogger(RunWorker.class);

    private final String executorId;
    private final ExecutorChannel channel;
    private final ShellRunner runner;
    private final LogShipper.Limits logLimits;
    private final BooleanSupplier agentRunning;
    private final LongAdder errors;
    private final HttpActions http = new HttpActions();
    private volatile Reaper reaper; // set when the agent starts, before any run

    /**
     * How long after its start a process may end and still have its start reported with its completion. A longer run
     * reports "started" this much later than it began (its STARTED event says when the server heard of it).
     */
    static final Duration START_CARRIED_WITHIN = Duration.ofMillis(100);

    RunWorker(
            String executorId,
            ExecutorChannel channel,
            ShellRunner runner,
            LogShipper.Limits logLimits,
            BooleanSupplier agentRunning,
            LongAdder errors) {
        this.executorId = executorId;
        this.channel = channel;
        this.runner = runner;
        this.logLimits = logLimits;
        this.agentRunning = agentRunning;
        this.errors = errors;
    }

    /** Renews one run's lease now; true if the server renewed it (it holds from the request's sending then). */
    @FunctionalInterface
    interface Renewal {
        boolean renew(ActiveRun run);
    }

    private volatile Renewal renewal = run -> false;

    /** The reaper of this executor's life, told of every process group a run starts, and how to renew a lease at once. */
    void guardWith(Reaper reaper, Renewal renewal) {
        this.reaper = reaper;
        this.renewal = renewal;
    }

    /**
     * Runs one claimed item to its end: start the process, report "started", stream its output, wait, report the
     * outcome. Returns without reporting when the run was abandoned (or the agent is closing). Blocks for the whole
     * run; call it on a thread of its own.
     */
    void runToEnd(ActiveRun run) throws InterruptedException {
        if (run.abandoned()) {
            return; // the server took it back before it started
        }
        if (!run.leaseHeld() && !renewal.renew(run)) {
            // Too long since the claim (this JVM was stopped or starved, or the answer was slow), and the server would
            // not
            // renew the lease now: it may already have passed the run on, and a body started now could run beside
            // another
            // executor's. It is not started; the server retries it.
            log.warn(
                    "not starting run {}: its lease was not renewed in time (this executor was stopped or starved)",
                    run.ref());
            run.abandon("not started: its lease was not renewed in time");
            return;
        }
        WorkItem item = run.item();
        if (HttpActions.HTTP.equals(item.actionType()) && item.http() != null) {
            runHttp(run);
            return;
        }
        if (!ShellActions.SHELL.equals(item.actionType())) {
            report(run, ShellActions.unsupported(executorId, item));
            return;
        }
        ShellCommand command;
        try {
            command = ShellActions.command(item, Reaper.MARKER_ENV, reaper.marker(run.ref()));
        } catch (IllegalArgumentException e) {
            report(run, ShellActions.startError(executorId, run.ref(), "cannot start: " + e.getMessage()));
            return;
        }
        LogShipper shipper = new LogShipper(
                channel, executorId, run.ref(), logLimits, reason -> run.abandon("log refused: " + reason), errors);
        RunningShell shell = runner.start(command, MaskingSink.of(mask(run), shipper));
        if (shell.pid() > 0) {
            reaper.track(run.ref(), shell.pid(), run.holdsUntilNanos());
        }
        run.attach(shell, shipper);
        // A process that ends within a moment of its start has its start carried by the completion (one report and one
        // commit instead of two); a longer one reports "started" then. Shards always report it on its own.
        boolean startCarried = shell.pid() > 0
                && !run.ref().sharded()
                && shell.await(START_CARRIED_WITHIN).isPresent();
        if (shell.pid() > 0 && !startCarried) {
            deliver(run, "start", () -> channel.started(new Started(executorId, run.ref(), shell.pid())))
                    .filter(answer -> !answer.accepted())
                    .ifPresent(answer -> run.abandon("start refused: " + answer.reason()));
        }
        shipper.startSending();
        ShellResult result = shell.await(); // also after an abandon: the slot frees only once the tree is dead
        if (shell.pid() > 0 && reaper.release(run.ref())) {
            // Killed by the reaper because its lease ran out: its exit says nothing about the job, and the server
            // passes the run on (or has), so nothing is reported.
            run.abandon("killed by the reaper: its lease was not renewed in time");
        }
        Optional<Completion> completion = ShellActions.completion(executorId, run.ref(), result)
                .map(c -> startCarried ? c.withStart(shell.pid()) : c);
        if (completion.isEmpty() && !run.abandoned()) {
            shipper.finish();
            log.warn(
                    "run {} was killed though nothing abandoned it; not reporting it: {}", run.ref(), result.message());
            return;
        }
        end(run, shipper, completion);
    }

    /**
     * Reports the outcome carrying the output not shipped yet (the server stores both in one transaction), unless the
     * run was abandoned (its output is dropped with it).
     */
    private void end(ActiveRun run, LogShipper shipper, Optional<Completion> completion) throws InterruptedException {
        List<LogChunk> tail = run.abandoned() ? List.of() : shipper.handOver();
        if (run.abandoned() || completion.isEmpty()) {
            log.info(
                    "run {} ended without a report: {}",
                    run.ref(),
                    run.abandoned() ? run.abandonReason() : "reported by the service");
            return;
        }
        report(run, completion.get().withTail(tail));
    }

    /**
     * An HTTP attempt: the same order of reports as a shell run (started, log, completion). With
     * {@code async}, a 202 answer leaves the run RUNNING: the service reports the outcome to the
     * server itself, whose next heartbeat answer tells this executor to let go; until then the
     * lease is kept, and the task's timeout still applies.
     */
    private void runHttp(ActiveRun run) throws InterruptedException {
        WorkItem item = run.item();
        LogShipper shipper = new LogShipper(
                channel, executorId, run.ref(), logLimits, reason -> run.abandon("log refused: " + reason), errors);
        // The URL, the answer and any error go to the log through the mask: a secret may be the URL itself.
        OutputSink output = MaskingSink.of(mask(run), shipper);
        HttpActions.Call call = http.start(item, output);
        run.attach(call, shipper);
        shipper.startSending();
        call.await();
        Optional<Completion> completion = HttpActions.completion(
                executorId, run.ref(), call, output, item.http().async());
        if (completion.isEmpty() && !run.abandoned() && HttpActions.isAccepted(call)) {
            shipper.line(
                    OutputSink.Stream.STDOUT,
                    "[ax] accepted; waiting for the service to report to POST /api/runs/" + item.instanceId()
                            + "/complete");
            Duration limit = item.timeoutSeconds() == null ? null : Duration.ofSeconds(item.timeoutSeconds());
            if (!run.awaitAbandon(limit)) {
                completion = Optional.of(new Completion(
                        executorId,
                        run.ref(),
                        false,
                        FailureKind.TIMEOUT,
                        null,
                        "no completion from the service within " + item.timeoutSeconds() + "s"));
            }
        }
        if (completion.isEmpty() && !run.abandoned()) {
            shipper.finish(); // the service reported the outcome itself: its log goes alone
        }
        end(run, shipper, completion);
    }

    private void report(ActiveRun run, Completion unmasked) throws InterruptedException {
        Completion completion = MaskingSink.masked(unmasked, mask(run));
        Optional<ReportAnswer> answer = deliver(run, "completion", () -> channel.complete(completion));
        if (answer.isEmpty()) {
            log.info(
                    "run {} dropped before its completion was delivered: {}",
                    run.ref(),
                    run.abandoned() ? run.abandonReason() : "executor shutting down");
        } else if (answer.get().accepted()) {
            run.markReported();
            log.debug("run {} reported: success={} {}", run.ref(), completion.success(), completion.message());
        } else {
            log.info("run {}: report refused: {}", run.ref(), answer.get().reason());
        }
    }

    /** The values of the secrets the run carries: written as {@code ***} in whatever leaves this process about it. */
    private static SecretMask mask(ActiveRun run) {
        return SecretMask.of(run.item().masks());
    }

    /**
     * Sends one report about a run, retrying with backoff while the server cannot be reached. Empty when the report
     * stopped mattering first: the run was abandoned or the executor is closing.
     */
    private Optional<ReportAnswer> deliver(ActiveRun run, String what, Supplier<ReportAnswer> send)
            throws InterruptedException {
        Backoff backoff = new Backoff();
        while (agentRunning.getAsBoolean() && !run.abandoned()) {
            try {
                return Optional.of(send.get());
            } catch (ChannelException e) {
                if (!agentRunning.getAsBoolean() || run.abandoned()) {
                    break;
                }
                long pause = backoff.next();
                log.warn("{} of run {} not delivered: {}; retrying in {} ms", what, run.ref(), e.getMessage(), pause);
                Thread.sleep(pause);
            }
        }
        return Optional.empty();
    }
}
