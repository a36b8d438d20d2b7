package dev.ax.domain.protocol;

import dev.ax.domain.run.FailureKind;

/**
 * The outcome of one attempt.
 *
 * @param failureKind {@code null} when {@code success}
 * @param exitCode    the process exit code, when there was one
 */
public record Completion(String executorId, RunRef run, boolean success, FailureKind failureKind,
                         Integer exitCode, String message) {
}
