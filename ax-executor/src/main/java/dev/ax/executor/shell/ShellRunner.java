package dev.ax.executor.shell;

import dev.ax.executor.os.Procs;
import dev.ax.executor.shell.ShellResult.Outcome;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs shell commands as whole process trees (Linux).
 *
 * <h2>Process group</h2>
 * The command runs as {@code setsid -w /bin/sh -c <command>}. A JVM child is never a process-group leader, so
 * util-linux {@code setsid} does not fork: it calls setsid(2) and execs {@code sh}. The pid Java reports is therefore
 * the pid of {@code sh}, and also its process-group id and session id: every process the job starts lands in that
 * group unless it leaves it on purpose. ({@code -w} only matters if setsid ever had to fork: it then waits and passes
 * the exit code on.) The session has no controlling terminal; stdin is {@code /dev/null}.
 *
 * <h2>Killing</h2>
 * On timeout or cancel: snapshot the shell's descendants, {@code kill -TERM -<pgid>} (one kill(2) for the whole
 * group), TERM snapshot members that left the group; wait up to {@code killGrace} for the group, the shell and the
 * snapshot to be gone; then {@code kill -KILL -<pgid>} and SIGKILL every known descendant still running. Zombies count
 * as gone. A process that left the group and whose parent died before the snapshot cannot be found and survives.
 *
 * <h2>Output and the drain</h2>
 * stdout and stderr are read on two threads and cut into lines (see {@link OutputSink}). await() returns after both
 * streams reached EOF. A background process started by the job (e.g. {@code (sleep 300 &)}) inherits the pipes and
 * can keep them open long after {@code sh} exited, so once the shell is gone the readers get a bounded drain: reading
 * stops when a stream has been quiet for {@link #DEFAULT_DRAIN_QUIET} since the exit, or at the latest
 * {@link #DEFAULT_MAX_DRAIN} after the exit. Then the pipes are closed and nothing more reaches the sink (the holder gets
 * SIGPIPE/EPIPE on a later write). Such leftover processes are NOT killed when the shell exits normally (cron-like
 * behaviour); the result message mentions that reading stopped early.
 * Everything written while the shell ran is delivered. Output that a background process writes AFTER the shell exited
 * is best-effort only: when the shell exits, the JDK itself drains what is buffered and closes its end of the pipes
 * unless a read is in progress at that moment.
 *
 * <h2>Results</h2>
 * EXITED with the shell's exit code (128+n if something outside killed it with signal n); TIMED_OUT and KILLED with a
 * null exit code (the code would only reflect our own signal); START_FAILED with pid -1.
 */
public final class ShellRunner {

    private static final Logger log = LoggerFactory.getLogger(ShellRunner.class);

    /** Time between SIGTERM and SIGKILL. */
    public static final Duration DEFAULT_KILL_GRACE = Duration.ofSeconds(5);
    /** After the shell exited, stop reading a stream that has been quiet this long. */
    public static final Duration DEFAULT_DRAIN_QUIET = Duration.ofSeconds(2);
    /** After the shell exited, stop reading after this long no matter what. */
    public static final Duration DEFAULT_MAX_DRAIN = Duration.ofSeconds(10);
    /** Longest line handed to the sink; longer lines are split. */
    public static final int MAX_LINE_BYTES = 64 * 1024;

    static final String SHELL = "/bin/sh";

    private final Duration killGrace;
    private final Duration drainQuiet;
    private final Duration maxDrain;
    private final List<String> launcher;

    public ShellRunner() {
        this(DEFAULT_KILL_GRACE);
    }

    public ShellRunner(Duration killGrace) {
        this(killGrace, DEFAULT_DRAIN_QUIET, DEFAULT_MAX_DRAIN, defaultLauncher());
    }

    /** For tests: drain times and the launcher prefix (null = setsid not available). */
    ShellRunner(Duration killGrace, Duration drainQuiet, Duration maxDrain, List<String> launcher) {
        this.killGrace = requireNonNegative(killGrace, "killGrace");
        this.drainQuiet = requireNonNegative(drainQuiet, "drainQuiet");
        this.maxDrain = requireNonNegative(maxDrain, "maxDrain");
        this.launcher = launcher == null ? null : List.copyOf(launcher);
    }

    static List<String> defaultLauncher() {
        String setsid = Procs.firstExecutable("/usr/bin/setsid", "/bin/setsid");
        return setsid == null ? null : List.of(setsid, "-w");
    }

    /**
     * Starts the command. Never throws for a command that cannot run: the returned shell's await() then gives
     * START_FAILED at once.
     */
    public RunningShell start(ShellCommand cmd, OutputSink sink) {
        Objects.requireNonNull(cmd, "cmd");
        OutputSink out = sink == null ? OutputSink.discard() : sink;
        long t0 = System.nanoTime(); // for durations only, not wall time
        if (launcher == null) {
            return failed(
                    t0,
                    "cannot start: setsid (util-linux) not found in /usr/bin or /bin; "
                            + "it is needed to run the command in its own process group");
        }
        if (cmd.workingDir() != null && !Files.isDirectory(cmd.workingDir())) {
            return failed(
                    t0,
                    "cannot start: working directory " + cmd.workingDir() + " does not exist or is not a directory");
        }
        List<String> argv = new ArrayList<>(launcher);
        argv.add(SHELL);
        argv.add("-c");
        argv.add(cmd.command());
        ProcessBuilder pb = new ProcessBuilder(argv).redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        if (cmd.workingDir() != null) {
            pb.directory(cmd.workingDir().toFile());
        }
        pb.environment().putAll(cmd.env());
        Process process;
        try {
            process = pb.start();
        } catch (IOException | RuntimeException e) {
            return failed(t0, "cannot start: " + e.getMessage());
        }
        ShellProcess shell = new ShellProcess(process, cmd, out, killGrace, drainQuiet, maxDrain, t0);
        shell.begin();
        log.debug("started shell {}: {}", shell.pid(), cmd.command());
        return shell;
    }

    private static RunningShell failed(long t0, String message) {
        log.warn("shell command not started: {}", message);
        return new Failed(
                new ShellResult(Outcome.START_FAILED, null, -1, Duration.ofNanos(System.nanoTime() - t0), message));
    }

    private static Duration requireNonNegative(Duration d, String name) {
        Objects.requireNonNull(d, name);
        if (d.isNegative()) {
            throw new IllegalArgumentException(name + " must not be negative: " + d);
        }
        return d;
    }

    /** A command that never started. */
    private record Failed(ShellResult result) implements RunningShell {
        @Override
        public long pid() {
            return -1;
        }

        @Override
        public ShellResult await() {
            return result;
        }

        @Override
        public Optional<ShellResult> await(Duration max) {
            return Optional.of(result);
        }

        @Override
        public void cancel(String reason) {
            // nothing runs
        }
    }
}
