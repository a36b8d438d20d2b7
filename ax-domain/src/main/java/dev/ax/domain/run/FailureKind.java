package dev.ax.domain.run;

/** What went wrong with an attempt; retry rules match on it. */
public enum FailureKind {
    /** The command exited with a non-zero code. */
    EXIT_CODE,
    /** The attempt ran longer than {@code policy.timeoutSeconds}; its process tree was killed. */
    TIMEOUT,
    /** The executor holding the lease stopped renewing it (crashed, killed, cut off). */
    EXECUTOR_LOST,
    /** The action could not be started at all (bad working directory, missing shell). */
    START_ERROR,
    /** The HTTP action answered with a status that counts as failure. */
    HTTP_STATUS,
    /** The HTTP action could not connect or read an answer. */
    CONNECTION,
    /** The action said the failure is final (an SDK handler's NonRetryableException): never retried. */
    FATAL
}
