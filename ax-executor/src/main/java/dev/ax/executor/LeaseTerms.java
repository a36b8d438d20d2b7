package dev.ax.executor;

import java.util.concurrent.TimeUnit;

/**
 * How long this executor counts on a run's lease, by its own monotonic clock. The server renews a lease when a
 * heartbeat (or the claiming poll) arrives, so the lease lasts at least {@code leaseMillis} past the moment the
 * executor sent that request. The executor keeps a margin of a third of it: a run whose lease it could not renew
 * for two thirds of the lease is not started, and its process tree is killed (by the reaper, which a stopped JVM
 * cannot hold back), so that the tree is gone a third of a lease before the server may hand the run to another
 * executor. docs/architecture.md gives the whole timing argument.
 */
record LeaseTerms(long leaseMillis) {
    /** The part of a lease kept in hand. */
    long marginMillis() {
        return leaseMillis / 3;
    }

    /** Until when a lease renewed by a request sent at {@code sentNanos} can be counted on. */
    long holdsUntil(long sentNanos) {
        return sentNanos + TimeUnit.MILLISECONDS.toNanos(Math.max(0, leaseMillis - marginMillis()));
    }
}
