package dev.ax.executor.shell;

import dev.ax.executor.os.Procs;
import dev.ax.executor.shell.ShellResult.Outcome;
import java.io.IOException;
import java.io.InputStream;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One started {@code setsid sh -c ...}: two reader threads (stdout, stderr) and a supervisor thread that waits for
 * exit / timeout / cancel, kills the tree when needed, drains the output and completes the result.
 *
 * <p>All times here are {@link System#nanoTime()} readings: used for durations and deadlines only, never as wall time.
 */
final class ShellProcess implements RunningShell {

    private static final Logger log = LoggerFactory.getLogger(ShellProcess.class);
    private static final long POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(20);
    /** After SIGKILL, how long to wait for the tree to actually disappear (D-state processes die late). */
    private static final long AFTER_KILL_NANOS = TimeUnit.SECONDS.toNanos(2);

    private final Process process;
    private final long pid;
    private final ShellCommand cmd;
    private final OutputSink sink;
    private final Duration killGrace;
    private final Duration drainQuiet;
    private final Duration maxDrain;
    private final long startNanos;

    private final Object lock = new Object();
    private Outcome ending; // guarded by lock; null while undecided
    private String cancelReason; // guarded by lock

    private final Object sinkLock = new Object();
    private volatile boolean abandoned; // set (then sinkLock taken) when the drain gives up: no sink calls after that

    private final Reader stdout;
    private final Reader stderr;
    private final CompletableFuture<ShellResult> result = new CompletableFuture<>();

    ShellProcess(
            Process process,
            ShellCommand cmd,
            OutputSink sink,
            Duration killGrace,
            Duration drainQuiet,
            Duration maxDrain,
            long startNanos) {
        this.process = process;
        this.pid = process.pid();
        this.cmd = cmd;
        this.sink = sink;
        this.killGrace = killGrace;
        this.drainQuiet = drainQuiet;
        this.maxDrain = maxDrain;
        this.startNanos = startNanos;
        this.stdout = new Reader(OutputSink.Stream.STDOUT, process.getInputStream());
        this.stderr = new Reader(OutputSink.Stream.STDERR, process.getErrorStream());
    }

    void begin() {
        Thread.ofPlatform().daemon().name("ax-shell-" + pid + "-stdout").start(stdout);
        Thread.ofPlatform().daemon().name("ax-shell-" + pid + "-stderr").start(stderr);
        // Wake the supervisor as soon as the shell exits.
        process.onExit().whenComplete((p, t) -> {
            synchronized (lock) {
                lock.notifyAll();
            }
        });
        Thread.ofPlatform().daemon().name("ax-shell-" + pid + "-supervisor").start(this::supervise);
    }

    @Override
    public long pid() {
        return pid;
    }

    @Override
    public ShellResult await() throws InterruptedException {
        try {
            return result.get();
        } catch (ExecutionException e) {
            throw new IllegalStateException("shell supervisor failed", e.getCause());
        }
    }

    @Override
    public Optional<ShellResult> await(Duration max) throws InterruptedException {
        try {
            return Optional.of(result.get(max.toNanos(), TimeUnit.NANOSECONDS));
        } catch (TimeoutException e) {
            return Optional.empty();
        } catch (ExecutionException e) {
            throw new IllegalStateException("shell supervisor failed", e.getCause());
        }
    }

    @Override
    public void cancel(String reason) {
        synchronized (lock) {
            // First decision wins; once the shell exited by itself there is nothing to cancel.
            if (ending == null && process.isAlive()) {
                ending = Outcome.KILLED;
                cancelReason = reason;
                lock.notifyAll();
            }
        }
    }

    // ---------------------------------------------------------------------------------------------- supervisor

    private void supervise() {
        try {
            Outcome outcome = awaitEnding();
            String killNote = outcome == Outcome.EXITED ? "" : killTree();
            int code = process.waitFor();
            Duration duration = Duration.ofNanos(System.nanoTime() - startNanos);
            boolean drained = drain();
            result.complete(new ShellResult(
                    outcome,
                    outcome == Outcome.EXITED ? code : null,
                    pid,
                    duration,
                    message(outcome, code, killNote, drained)));
        } catch (Throwable t) {
            log.error("supervising shell {} failed", pid, t);
            ProcessTree.signalGroup(pid, "KILL");
            process.destroyForcibly();
            abandon();
            result.completeExceptionally(t);
        }
    }

    /** Waits until the shell exits, the timeout expires or cancel() is called; the first of these decides. */
    private Outcome awaitEnding() throws InterruptedException {
        long deadline = cmd.timeout() == null ? 0 : startNanos + cmd.timeout().toNanos();
        synchronized (lock) {
            while (ending == null) {
                if (!process.isAlive()) {
                    ending = Outcome.EXITED;
                } else if (cmd.timeout() == null) {
                    lock.wait();
                } else {
                    long left = deadline - System.nanoTime();
                    if (left <= 0) {
                        ending = Outcome.TIMED_OUT;
                    } else {
                        TimeUnit.NANOSECONDS.timedWait(lock, left);
                    }
                }
            }
            return ending;
        }
    }

    /**
     * SIGTERM to the process group (and to descendants that left it), wait up to the grace for everything to exit,
     * then SIGKILL whatever is left. Returns a note for the result message ("" if SIGTERM sufficed).
     */
    private String killTree() throws InterruptedException {
        // Snapshot before the first signal: once a parent dies its children are re-parented and no longer findable
        // as descendants; the snapshot also finds children that moved to another group/session (setsid) themselves.
        List<ProcessHandle> snapshot = process.descendants().toList();
        if (!ProcessTree.signalGroup(pid, "TERM")) {
            // No group yet: setsid has not called setsid(2) (cancel right after start). Then sh has not run, so there
            // are no children either: signalling the process itself is enough (the group is re-tried with KILL below).
            ProcessTree.signal(process.toHandle(), "TERM");
        }
        for (ProcessHandle h : snapshot) {
            if (Procs.stat(h.pid()).map(s -> s.pgid() != pid).orElse(false)) {
                ProcessTree.signal(h, "TERM"); // escaped the group
            }
        }
        long graceEnd = System.nanoTime() + killGrace.toNanos();
        while (treeRunning(snapshot)) {
            long left = graceEnd - System.nanoTime();
            if (left <= 0) {
                break;
            }
            TimeUnit.NANOSECONDS.sleep(Math.min(left, POLL_NANOS));
        }
        if (!treeRunning(snapshot)) {
            return "";
        }
        // Survivors: KILL the group, the shell, and every known descendant (plus what those spawned meanwhile).
        Set<ProcessHandle> known = new LinkedHashSet<>(snapshot);
        for (ProcessHandle h : new ArrayList<>(known)) {
            h.descendants().forEach(known::add);
        }
        process.descendants().forEach(known::add);
        ProcessTree.signalGroup(pid, "KILL");
        ProcessTree.signal(process.toHandle(), "KILL");
        known.forEach(h -> ProcessTree.signal(h, "KILL"));
        long killEnd = System.nanoTime() + AFTER_KILL_NANOS;
        while (treeRunning(known) && System.nanoTime() < killEnd) {
            ProcessTree.signalGroup(pid, "KILL"); // also catches anything forked between scan and signal
            TimeUnit.NANOSECONDS.sleep(POLL_NANOS);
        }
        if (treeRunning(known)) {
            log.warn(
                    "process tree of shell {} still running {} after SIGKILL",
                    pid,
                    format(Duration.ofNanos(AFTER_KILL_NANOS)));
        }
        return "; SIGKILL after " + format(killGrace) + " grace";
    }

    private boolean treeRunning(Iterable<ProcessHandle> known) {
        if (process.isAlive() || !ProcessTree.groupMembers(pid).isEmpty()) {
            return true;
        }
        for (ProcessHandle h : known) {
            if (ProcessTree.running(h)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Waits for both readers to reach EOF. Once the shell is gone, EOF comes as soon as every process holding the
     * pipes has exited. A background process that outlives the shell may hold them open for ever, so we stop waiting
     * when a reader saw no activity for {@code drainQuiet} since the shell exited, or {@code maxDrain} after exit in
     * any case; then the pipes are abandoned (closed, no further sink calls). Returns false if it had to abandon.
     */
    private boolean drain() throws InterruptedException {
        long exited = System.nanoTime();
        long hardEnd = exited + maxDrain.toNanos();
        for (Reader r : List.of(stdout, stderr)) {
            while (true) {
                long quietEnd = Math.max(r.lastActivity, exited) + drainQuiet.toNanos();
                long until = Math.min(quietEnd, hardEnd);
                long now = System.nanoTime();
                if (now >= until) {
                    if (r.done.getCount() == 0) {
                        break;
                    }
                    log.info(
                            "shell {} exited but its {} is still held open by a background process; "
                                    + "stopped reading after {}",
                            pid,
                            r.stream,
                            format(Duration.ofNanos(now - exited)));
                    abandon();
                    return false;
                }
                if (r.done.await(until - now, TimeUnit.NANOSECONDS)) {
                    break;
                }
            }
        }
        return true;
    }

    private void abandon() {
        abandoned = true;
        synchronized (sinkLock) {
            // waits for a delivery in flight; afterwards readers see 'abandoned' and deliver nothing more
        }
        // Closing does not wake a read(2) blocked on a pipe; the reader thread ends at the holder's next write or exit.
        // Close on a separate thread so that a JDK that does block in close() can never block await().
        Thread.ofPlatform().daemon().name("ax-shell-" + pid + "-close").start(() -> {
            closeQuietly(process.getInputStream());
            closeQuietly(process.getErrorStream());
        });
    }

    private static void closeQuietly(InputStream in) {
        try {
            in.close();
        } catch (IOException ignored) {
            // nothing to do
        }
    }

    private String message(Outcome outcome, int code, String killNote, boolean drained) {
        String base = switch (outcome) {
            case EXITED -> "exited with code " + code;
            case TIMED_OUT ->
                "timed out after " + format(cmd.timeout()) + "; process group " + pid + " killed" + killNote;
            case KILLED -> {
                String reason;
                synchronized (lock) {
                    reason = cancelReason;
                }
                yield "cancelled" + (reason == null || reason.isBlank() ? "" : ": " + reason) + "; process group " + pid
                        + " killed" + killNote;
            }
            case START_FAILED -> throw new IllegalStateException();
        };
        return drained ? base : base + "; output still held open by a background process, stopped reading after exit";
    }

    /** "2s", "1.5s", "300ms". */
    static String format(Duration d) {
        long ms = d.toMillis();
        if (ms < 1000) {
            return ms + "ms";
        }
        if (ms % 1000 == 0) {
            return (ms / 1000) + "s";
        }
        return BigDecimal.valueOf(ms, 3).stripTrailingZeros().toPlainString() + "s";
    }

    // ---------------------------------------------------------------------------------------------- output

    private void deliver(OutputSink.Stream stream, String line, boolean piece) {
        synchronized (sinkLock) {
            if (abandoned) {
                return;
            }
            try {
                if (piece) {
                    sink.piece(stream, line);
                } else {
                    sink.line(stream, line);
                }
            } catch (RuntimeException e) {
                log.warn("output sink failed on a {} line of shell {}; line dropped", stream, pid, e);
            }
        }
    }

    private final class Reader implements Runnable {
        final OutputSink.Stream stream;
        final InputStream in;
        final CountDownLatch done = new CountDownLatch(1);
        volatile long lastActivity = System.nanoTime();

        Reader(OutputSink.Stream stream, InputStream in) {
            this.stream = stream;
            this.in = in;
        }

        @Override
        public void run() {
            LineSplitter lines = new LineSplitter(
                    ShellRunner.MAX_LINE_BYTES,
                    line -> {
                        deliver(stream, line, false);
                        lastActivity = System.nanoTime();
                    },
                    piece -> {
                        deliver(stream, piece, true);
                        lastActivity = System.nanoTime();
                    });
            byte[] buf = new byte[8192];
            try (in) {
                int n;
                while ((n = in.read(buf)) != -1) {
                    lastActivity = System.nanoTime();
                    lines.feed(buf, 0, n);
                }
                lines.finish();
            } catch (IOException e) {
                if (!abandoned) {
                    log.warn("reading {} of shell {} failed", stream, pid, e);
                }
            } catch (RuntimeException e) {
                log.error("reading {} of shell {} failed", stream, pid, e);
            } finally {
                done.countDown();
            }
        }
    }
}
