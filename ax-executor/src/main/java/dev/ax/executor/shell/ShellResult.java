package dev.ax.executor.shell;

import java.time.Duration;
import java.util.Objects;

/**
 * How a shell command ended.
 *
 * @param outcome  what happened
 * @param exitCode the shell's exit code for {@link Outcome#EXITED} (128+n when a signal n from outside the runner
 *                 killed it); null for TIMED_OUT, KILLED and START_FAILED, where any code would only be an
 *                 artefact of the runner's own signals
 * @param pid      pid of the process-group leader, -1 when the process never started
 * @param duration time from start until the shell exited (or was killed); measured with a monotonic clock
 * @param message  a human-readable one-liner, e.g. "exited with code 3" or
 *                 "timed out after 2s; process group 1234 killed"
 */
public record ShellResult(Outcome outcome, Integer exitCode, long pid, Duration duration, String message) {

    public enum Outcome {
        /** The shell exited by itself (any exit code, including 128+signal for a signal sent from outside). */
        EXITED,
        /** The timeout expired and the runner killed the process tree. */
        TIMED_OUT,
        /** {@link RunningShell#cancel(String)} killed the process tree. */
        KILLED,
        /** The process could not be started (bad working directory, missing binary, ...). */
        START_FAILED
    }

    public ShellResult {
        Objects.requireNonNull(outcome, "outcome");
        Objects.requireNonNull(duration, "duration");
        Objects.requireNonNull(message, "message");
    }

    /** True only for EXITED with code 0. */
    public boolean succeeded() {
        return outcome == Outcome.EXITED && exitCode != null && exitCode == 0;
    }
}
