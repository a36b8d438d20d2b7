package dev.ax.executor.shell;

import java.time.Duration;
import java.util.Optional;

/** A started shell command. All methods are thread-safe. */
public interface RunningShell {

    /**
     * Pid of the shell, which is also its process-group id and session id (known right after start);
     * -1 if the command failed to start.
     */
    long pid();

    /**
     * Blocks until the shell exited (after a timeout or cancel: until the whole tree was killed) and all its output was
     * delivered to the sink. If background processes keep the output pipes open after the shell exited, waits at most
     * a bounded drain time (see {@link ShellRunner}) and then abandons those pipes. Can be called any number of times.
     */
    ShellResult await() throws InterruptedException;

    /** {@link #await()} for at most {@code max}: empty when the shell has not ended by then. */
    Optional<ShellResult> await(Duration max) throws InterruptedException;

    /**
     * Terminates the whole process tree (SIGTERM to the group, then SIGKILL after the grace); {@link #await()} then
     * returns {@link ShellResult.Outcome#KILLED}. Does not block. Idempotent. If the shell already exited by itself
     * (or timed out) this is a no-op and the result stays what it was.
     */
    void cancel(String reason);
}
