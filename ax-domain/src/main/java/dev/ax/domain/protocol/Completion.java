package dev.ax.domain.protocol;

import dev.ax.domain.run.FailureKind;
import java.util.List;

/**
 * The outcome of one attempt.
 *
 * @param failureKind {@code null} when {@code success}
 * @param exitCode    the process exit code, when there was one
 * @param pid         the process's pid when its "started" report was not sent because the process ended first (within
 *                    a moment of its start): the server records the start (pid and STARTED event) with the outcome,
 *                    before it, in the same transaction. {@code null} when "started" was reported, or there was no process.
 * @param tail        the attempt's last lines of output that were not shipped as {@link LogChunk}s yet: the server
 *                    stores them in the transaction that records the outcome (so a short run's log and its end
 *                    cost one commit, not two), and not at all when it refuses the completion. Empty when there are none.
 */
public record Completion(
        String executorId,
        RunRef run,
        boolean success,
        FailureKind failureKind,
        Integer exitCode,
        String message,
        Long pid,
        List<LogChunk> tail) {
    public Completion {
        tail = tail == null ? List.of() : List.copyOf(tail);
    }

    /** A completion that carries no output and no start. */
    public Completion(
            String executorId, RunRef run, boolean success, FailureKind failureKind, Integer exitCode, String message) {
        this(executorId, run, success, failureKind, exitCode, message, null, List.of());
    }

    /** A completion that carries output. */
    public Completion(
            String executorId,
            RunRef run,
            boolean success,
            FailureKind failureKind,
            Integer exitCode,
            String message,
            List<LogChunk> tail) {
        this(executorId, run, success, failureKind, exitCode, message, null, tail);
    }

    /** This completion carrying {@code tail} (replacing any it had). */
    public Completion withTail(List<LogChunk> tail) {
        return new Completion(executorId, run, success, failureKind, exitCode, message, pid, tail);
    }

    /** This completion carrying the start of a process that ended before "started" was reported. */
    public Completion withStart(long pid) {
        return new Completion(executorId, run, success, failureKind, exitCode, message, pid, tail);
    }
}
