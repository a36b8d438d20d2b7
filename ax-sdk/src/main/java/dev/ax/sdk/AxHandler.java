package dev.ax.sdk;

/**
 * A job inside your own service, registered with a worker under a name that tasks refer to
 * ({@code {"type":"sdk","handler":"syncOrders","group":"orders"}}).
 *
 * <p>How an attempt ends:
 * <ul>
 *   <li>returns: SUCCESS; the value's {@code toString()} is the run's message ({@code null}: none);</li>
 *   <li>throws {@link NonRetryableException}: FAILED at once, whatever the task's retry policy
 *       (reported as failure kind {@code START_ERROR}, the kind no policy retries);</li>
 *   <li>throws anything else: a failure like a process exiting with code 1 (failure kind
 *       {@code EXIT_CODE}, exit code 1), retried as the task's policy says; the message is the
 *       exception's class and message, and its stack trace goes to the run's log;</li>
 *   <li>runs past the task's {@code timeoutSeconds}: the handler thread is interrupted and the
 *       attempt fails as {@code TIMEOUT}.</li>
 * </ul>
 *
 * <p>A handler may run again for the same run: a retry after a failure, or a re-delivery after
 * its report was lost. {@link AxContext#requestId()} stays the same across those attempts;
 * {@link AxContext#runOnce} uses it so that work committed once is not done twice.
 */
@FunctionalInterface
public interface AxHandler {
    Object handle(AxContext ctx) throws Exception;
}
