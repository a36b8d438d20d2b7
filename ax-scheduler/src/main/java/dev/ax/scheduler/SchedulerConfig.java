package dev.ax.scheduler;

import dev.ax.domain.policy.Catchup;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Tunables of a server node. Immutable; invalid values fail with a message naming the field.
 *
 * @param scanWindow       a slot due longer ago than this is "missed" and the misfire policy decides
 * @param fireBatch        tasks claimed per firing transaction
 * @param maxIdleWait      the longest the firing loop sleeps without looking (other nodes' edits)
 * @param leaseMillis      how long an executor's lease lasts without a heartbeat
 * @param executorAlive    an executor not heard from for this long counts as offline
 * @param housekeeping     how often leases and retries are checked
 * @param channels         alert channels configured on this server (tasks may name others, with a warning)
 * @param groupCapacity    at most this many RUNNING runs per executor group, across all executors
 *                         (groups not named: no limit), so one group's flood cannot take every slot
 * @param fireAhead        how long before its slot a run of a task that fires ahead ({@code overflow: ALLOW}) is
 *                         created; it waits READY for its slot, so creating it takes nothing from its start time.
 *                         Zero: every run is created at its slot
 * @param claimAhead       how long before their slot a long poll claims runs fired ahead; it hands them out at the
 *                         slot, so their bodies start on it rather than after the claim's transaction (tens of
 *                         milliseconds for a thousand runs due at once). Zero: runs are claimed once due
 * @param idempotencyWindow how long a trigger's {@code Idempotency-Key} answers with the run it made; after it, the
 *                         same key makes a new run (and housekeeping deletes the old key)
 * @param retention        how long runs, events and output are kept
 */
public record SchedulerConfig(
        Duration scanWindow,
        int fireBatch,
        Duration maxIdleWait,
        long leaseMillis,
        Duration executorAlive,
        Duration housekeeping,
        Duration pollRecheck,
        Set<String> channels,
        Map<String, Integer> groupCapacity,
        Duration fireAhead,
        Duration claimAhead,
        Duration idempotencyWindow,
        HistoryRetention retention) {
    public static final Duration DEFAULT_SCAN_WINDOW = Catchup.DEFAULT_WINDOW;
    public static final int DEFAULT_FIRE_BATCH = 200;
    public static final Duration DEFAULT_MAX_IDLE_WAIT = Duration.ofSeconds(1);
    public static final long DEFAULT_LEASE_MILLIS = 30_000;
    public static final Duration DEFAULT_EXECUTOR_ALIVE = Duration.ofSeconds(60);
    public static final Duration DEFAULT_HOUSEKEEPING = Duration.ofMillis(500);
    /** Long polls look at the database this often for work created by other nodes. */
    public static final Duration DEFAULT_POLL_RECHECK = Duration.ofMillis(250);
    /**
     * Long enough to create a thousand runs due at the same second on a small machine before that
     * second; and half of one, not all: slots fall on whole seconds, so with a full second the runs
     * of the next slot would be created just when the runs of this one are being claimed.
     */
    public static final Duration DEFAULT_FIRE_AHEAD = Duration.ofMillis(500);
    /**
     * Enough for twenty polls to claim a thousand runs due at the same second on a small machine
     * (70–110 ms on two busy cores), and well inside {@link #DEFAULT_FIRE_AHEAD}, so the runs are there
     * to claim.
     */
    public static final Duration DEFAULT_CLAIM_AHEAD = Duration.ofMillis(250);
    /** A day: a caller retrying a trigger does so within minutes; one that sends yesterday's key again means a new run. */
    public static final Duration DEFAULT_IDEMPOTENCY_WINDOW = Duration.ofHours(24);
    /** Ten years: keys are kept that long, and the window is written into SQL in milliseconds. */
    public static final Duration MAX_IDEMPOTENCY_WINDOW = Duration.ofDays(3650);

    public static final SchedulerConfig DEFAULT = new SchedulerConfig(
            DEFAULT_SCAN_WINDOW,
            DEFAULT_FIRE_BATCH,
            DEFAULT_MAX_IDLE_WAIT,
            DEFAULT_LEASE_MILLIS,
            DEFAULT_EXECUTOR_ALIVE,
            DEFAULT_HOUSEKEEPING,
            DEFAULT_POLL_RECHECK,
            Set.of(),
            Map.of(),
            DEFAULT_FIRE_AHEAD,
            DEFAULT_CLAIM_AHEAD,
            DEFAULT_IDEMPOTENCY_WINDOW,
            HistoryRetention.DEFAULT);

    public SchedulerConfig {
        positive("scanWindow", scanWindow);
        positive("maxIdleWait", maxIdleWait);
        positive("executorAlive", executorAlive);
        positive("housekeeping", housekeeping);
        positive("pollRecheck", pollRecheck);
        if (fireBatch < 1) {
            throw new IllegalArgumentException("fireBatch must be at least 1, was " + fireBatch);
        }
        if (leaseMillis < 1000) {
            throw new IllegalArgumentException("leaseMillis must be at least 1000, was " + leaseMillis);
        }
        channels = Set.copyOf(channels);
        groupCapacity = groupCapacity == null ? Map.of() : Map.copyOf(groupCapacity);
        Objects.requireNonNull(fireAhead, "fireAhead");
        if (fireAhead.isNegative() || fireAhead.compareTo(scanWindow) >= 0) {
            throw new IllegalArgumentException(
                    "fireAhead must be zero or more and less than scanWindow (" + scanWindow + "), was " + fireAhead);
        }
        Objects.requireNonNull(claimAhead, "claimAhead");
        if (claimAhead.isNegative() || claimAhead.toMillis() > leaseMillis / 2) {
            throw new IllegalArgumentException("claimAhead must be zero or more and at most half the lease ("
                    + leaseMillis + " ms), was " + claimAhead);
        }
        positive("idempotencyWindow", idempotencyWindow);
        if (idempotencyWindow.compareTo(MAX_IDEMPOTENCY_WINDOW) > 0) {
            throw new IllegalArgumentException(
                    "idempotencyWindow must be at most " + MAX_IDEMPOTENCY_WINDOW + ", was " + idempotencyWindow);
        }
        Objects.requireNonNull(retention, "retention");
        groupCapacity.forEach((group, n) -> {
            if (n == null || n < 1) {
                throw new IllegalArgumentException("groupCapacity." + group + " must be at least 1, was " + n);
            }
        });
    }

    public SchedulerConfig(
            Duration scanWindow,
            int fireBatch,
            Duration maxIdleWait,
            long leaseMillis,
            Duration executorAlive,
            Duration housekeeping,
            Duration pollRecheck,
            Set<String> channels) {
        this(
                scanWindow,
                fireBatch,
                maxIdleWait,
                leaseMillis,
                executorAlive,
                housekeeping,
                pollRecheck,
                channels,
                Map.of(),
                DEFAULT_FIRE_AHEAD,
                DEFAULT_CLAIM_AHEAD,
                DEFAULT_IDEMPOTENCY_WINDOW,
                HistoryRetention.DEFAULT);
    }

    public SchedulerConfig withChannels(Set<String> names) {
        return new SchedulerConfig(
                scanWindow,
                fireBatch,
                maxIdleWait,
                leaseMillis,
                executorAlive,
                housekeeping,
                pollRecheck,
                names,
                groupCapacity,
                fireAhead,
                claimAhead,
                idempotencyWindow,
                retention);
    }

    public SchedulerConfig withGroupCapacity(Map<String, Integer> capacity) {
        return new SchedulerConfig(
                scanWindow,
                fireBatch,
                maxIdleWait,
                leaseMillis,
                executorAlive,
                housekeeping,
                pollRecheck,
                channels,
                capacity,
                fireAhead,
                claimAhead,
                idempotencyWindow,
                retention);
    }

    /**
     * A third of the lease, and at most 2 s: the heartbeat is also how an executor learns that a
     * run was terminated, so it bounds how long a terminated process keeps running.
     */
    public long heartbeatMillis() {
        return Math.max(250, Math.min(leaseMillis / 3, 2000));
    }

    public SchedulerConfig withLeaseMillis(long lease) {
        return new SchedulerConfig(
                scanWindow,
                fireBatch,
                maxIdleWait,
                lease,
                executorAlive,
                housekeeping,
                pollRecheck,
                channels,
                groupCapacity,
                fireAhead,
                claimAhead,
                idempotencyWindow,
                retention);
    }

    public SchedulerConfig withScanWindow(Duration window) {
        return new SchedulerConfig(
                window,
                fireBatch,
                maxIdleWait,
                leaseMillis,
                executorAlive,
                housekeeping,
                pollRecheck,
                channels,
                groupCapacity,
                fireAhead,
                claimAhead,
                idempotencyWindow,
                retention);
    }

    public SchedulerConfig withFireAhead(Duration ahead) {
        return new SchedulerConfig(
                scanWindow,
                fireBatch,
                maxIdleWait,
                leaseMillis,
                executorAlive,
                housekeeping,
                pollRecheck,
                channels,
                groupCapacity,
                ahead,
                claimAhead,
                idempotencyWindow,
                retention);
    }

    public SchedulerConfig withClaimAhead(Duration ahead) {
        return new SchedulerConfig(
                scanWindow,
                fireBatch,
                maxIdleWait,
                leaseMillis,
                executorAlive,
                housekeeping,
                pollRecheck,
                channels,
                groupCapacity,
                fireAhead,
                ahead,
                idempotencyWindow,
                retention);
    }

    public SchedulerConfig withIdempotencyWindow(Duration window) {
        return new SchedulerConfig(
                scanWindow,
                fireBatch,
                maxIdleWait,
                leaseMillis,
                executorAlive,
                housekeeping,
                pollRecheck,
                channels,
                groupCapacity,
                fireAhead,
                claimAhead,
                window,
                retention);
    }

    private static void positive(String field, Duration d) {
        Objects.requireNonNull(d, field);
        if (d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException(field + " must be positive, was " + d);
        }
    }

    public SchedulerConfig withRetention(HistoryRetention r) {
        return new SchedulerConfig(
                scanWindow,
                fireBatch,
                maxIdleWait,
                leaseMillis,
                executorAlive,
                housekeeping,
                pollRecheck,
                channels,
                groupCapacity,
                fireAhead,
                claimAhead,
                idempotencyWindow,
                r);
    }
}
