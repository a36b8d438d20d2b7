package dev.ax.scheduler;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * What this node remembers of the executors that poll it: when each was last marked seen in the
 * database (at most once a second) and its environment labels, forgotten once it stays silent
 * for {@code executorAlive}.
 */
final class ExecutorSightings {
    private final NodeContext ctx;
    private final Claims claims;

    ExecutorSightings(NodeContext ctx, Claims claims) {
        this.ctx = ctx;
        this.claims = claims;
    }

    /** When an executor's poll last wrote its {@code last_seen_at}, and its environment labels read then. */
    private record Seen(long atNanos, List<String> labels) {}

    private final ConcurrentHashMap<String, Seen> seen = new ConcurrentHashMap<>();
    private static final long SEEN_EVERY_NANOS = Duration.ofSeconds(1).toNanos();

    /**
     * Marks the executor seen and returns its labels, at most once a second per executor: a busy
     * executor polls hundreds of times a second, and a commit for each would only move a timestamp
     * whose use ("offline after 60 s") needs seconds. Labels change only when an executor registers
     * again: on this node that drops the cached ones at once, on another within a second.
     */
    List<String> seenAndLabels(String executorId) {
        long now = ticker.getAsLong();
        Seen last = seen.get(executorId);
        if (last != null && now - last.atNanos() < SEEN_EVERY_NANOS) {
            return last.labels();
        }
        List<String> labels = ctx.store().tx(tx -> {
            ctx.store().executors().seen(tx, executorId);
            return ctx.store().executors().labels(tx, executorId);
        });
        seen.put(executorId, new Seen(now, labels));
        forgetSilent(now);
        return labels;
    }

    /** Nanoseconds for what this node remembers of executors; {@link System#nanoTime} but in tests. */
    private volatile LongSupplier ticker = System::nanoTime;
    /** When silent executors were last forgotten, by {@link #ticker}; unset until the first executor is seen. */
    private final AtomicLong forgotAt = new AtomicLong(UNSET);

    private static final long UNSET = Long.MIN_VALUE;

    /**
     * Forgets, at most once per {@code executorAlive}, the executors that have not polled this node
     * for that long (offline, or gone: an executor's id may be new at every start, a pod's name), so
     * that what this node remembers of executors stays bounded by those that poll it. One that comes
     * back is read again like a new one.
     */
    private void forgetSilent(long now) {
        long silent = ctx.config().executorAlive().toNanos();
        long last = forgotAt.get();
        if (last == UNSET) {
            forgotAt.compareAndSet(UNSET, now);
            return;
        }
        if (now - last < silent || !forgotAt.compareAndSet(last, now)) {
            return;
        }
        seen.values().removeIf(s -> now - s.atNanos() >= silent);
        claims.retainExpectedOf(seen.keySet());
    }

    /** Executors this node remembers (polled within {@code executorAlive}, roughly); for tests and diagnostics. */
    int remembered() {
        return seen.size();
    }

    /** Replaces the time source of what this node remembers of executors (tests: time moved by hand). */
    void useTicker(LongSupplier nanos) {
        this.ticker = nanos;
    }

    /** Drops what this node remembers of the executor (it registered again: its labels may have changed). */
    void forget(String executorId) {
        seen.remove(executorId);
    }
}
