package dev.ax.executor;

import dev.ax.domain.protocol.RunRef;
import dev.ax.domain.protocol.WorkItem;
import dev.ax.executor.shell.RunningShell;
import java.time.Duration;

/**
 * One claimed run while this executor holds its lease: from the poll that claimed it until its completion was
 * delivered (or it was dropped).
 *
 * <p>The server can tell us to stop a run (heartbeat "abandon", a refused report) at any moment, including before its
 * process exists. {@link #attach} and {@link #abandon} are synchronized on the run so that whichever comes second
 * still kills the process: an abandon can never slip in between "process started" and "process registered here".
 */
final class ActiveRun {

    private final WorkItem item;
    /** Until when (this JVM's nanoTime) the run's lease can be counted on; see {@link LeaseTerms}. */
    private volatile long holdsUntilNanos;

    private RunningShell shell; // guarded by this; null until started
    private LogShipper shipper; // guarded by this
    private String abandonReason; // guarded by this; non-null once the run must not be reported any more
    private volatile boolean reported;

    ActiveRun(WorkItem item, long holdsUntilNanos) {
        this.item = item;
        this.holdsUntilNanos = holdsUntilNanos;
    }

    long holdsUntilNanos() {
        return holdsUntilNanos;
    }

    /** A heartbeat renewed the lease: it holds until then. */
    void renewed(long untilNanos) {
        holdsUntilNanos = untilNanos;
    }

    /** True while this executor can show, by its own clock, that it still holds the run's lease with the margin. */
    boolean leaseHeld() {
        return System.nanoTime() - holdsUntilNanos < 0;
    }

    WorkItem item() {
        return item;
    }

    RunRef ref() {
        return item.ref();
    }

    /** Registers the started process and its log shipper; kills them at once if the run was abandoned meanwhile. */
    synchronized void attach(RunningShell shell, LogShipper shipper) {
        this.shell = shell;
        this.shipper = shipper;
        if (abandonReason != null) {
            stop();
        }
    }

    /**
     * Stops the run for good: kills its process tree (without waiting), drops its buffered output, and makes sure
     * no report about it is sent. The first reason wins. Safe from any thread.
     */
    synchronized void abandon(String reason) {
        if (abandonReason == null) {
            abandonReason = reason;
            stop();
            notifyAll();
        }
    }

    /**
     * Waits until the run is abandoned (the server let it go) or {@code limit} passes
     * ({@code null} = no limit); true if abandoned.
     */
    synchronized boolean awaitAbandon(Duration limit) throws InterruptedException {
        long end = limit == null ? Long.MAX_VALUE : System.nanoTime() + limit.toNanos(); // a deadline, not wall time
        while (abandonReason == null) {
            long left = end - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            wait(Math.max(1, Math.min(left / 1_000_000, 1000)));
        }
        return true;
    }

    /** The server accepted the run's completion: nothing more happens to it here. */
    void markReported() {
        reported = true;
    }

    boolean reported() {
        return reported;
    }

    synchronized boolean abandoned() {
        return abandonReason != null;
    }

    synchronized String abandonReason() {
        return abandonReason;
    }

    private void stop() {
        if (shell != null) {
            shell.cancel(abandonReason);
        }
        if (shipper != null) {
            shipper.abort();
        }
    }
}
