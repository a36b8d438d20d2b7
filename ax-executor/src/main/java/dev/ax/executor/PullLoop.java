package dev.ax.executor;

import dev.ax.domain.protocol.Heartbeat;
import dev.ax.domain.protocol.HeartbeatAnswer;
import dev.ax.domain.protocol.Poll;
import dev.ax.domain.protocol.RegisterAnswer;
import dev.ax.domain.protocol.RunRef;
import dev.ax.domain.protocol.WorkItem;
import dev.ax.executor.ExecutorChannel.ChannelException;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The loop of every executor client, the shell executor ({@link ExecutorAgent}) and the SDK's worker
 * alike: one <b>poll</b> thread long-polls for as many runs as there are free slots and waits while
 * every slot is busy, so the server never hands out work that cannot start; one <b>heartbeat</b>
 * thread renews the leases held, separately because a long poll may block longer than a lease may go
 * unrenewed; each run gets a thread of its own. What a run is and how it runs is the client's
 * ({@link Client}); the loop owns the slots, the held leases and its two threads.
 *
 * <p>A run is held (its lease renewed) from the poll that claimed it until its thread ended, or
 * longer while the client still reports it. When the server lets go of a run (a heartbeat's
 * "abandon"), the client is told to stop it, and nothing more is reported about it: the server has
 * decided its fate. The loops never die: an unreachable server is retried with {@link Backoff},
 * anything else is logged and counted in {@link #errorCount()}, which tests expect to stay zero.
 *
 * <p>The poll thread is a platform thread: closing interrupts it to end a long poll or a wait for a
 * free slot, and on a platform thread that interrupt never closes a socket in the middle of a read
 * (on a virtual thread it does: the in-process channel's claim lost its database connection
 * mid-commit).
 */
public final class PullLoop<R> {
    private static final Logger log = LoggerFactory.getLogger(PullLoop.class);
    /** The heartbeat period when the server names none and no lease either. */
    static final long FALLBACK_HEARTBEAT_MILLIS = 10_000;

    /** What a client does with the runs the loop hands it. */
    public interface Client<R> {
        /** The run for an item the server handed out by a poll sent at {@code sentNanos} ({@link System#nanoTime}). */
        R accept(WorkItem item, long sentNanos);

        /** Runs it to its end, on the thread the loop started for it; an interrupt means the client is closing. */
        void run(R run) throws InterruptedException;

        /** Stops the run: the server let go of it, or the client is closing. */
        void abandon(R run, String reason);

        /** Whether the server already has the run's outcome (a late "abandon" for it changes nothing). */
        default boolean reported(R run) {
            return false;
        }

        /** Whether the run still needs its lease once its thread ended (its report is still being retried). */
        default boolean stillReporting(R run) {
            return false;
        }

        /** The leases of {@code refs} were renewed by a heartbeat sent at {@code sentNanos}. */
        default void renewed(List<RunRef> refs, long sentNanos) {}

        /** The thread a run of {@code item} runs on (not started). */
        Thread.Builder threadFor(WorkItem item);

        /** Registers again in the background (only for a loop started unregistered); returns the heartbeat period. */
        default long register() {
            throw new IllegalStateException("this client registers before its loop starts");
        }
    }

    private final String name;
    private final ExecutorConfig config;
    private final ExecutorChannel channel;
    private final Client<R> client;

    private final ConcurrentHashMap<RunRef, R> held = new ConcurrentHashMap<>();
    private final Set<Thread> runThreads = ConcurrentHashMap.newKeySet();
    private final LongAdder errors;
    /** Run threads alive, guarded by {@link #slotLock}; the poll loop waits on {@link #slotFreed} while they fill every slot. */
    private int busy;

    private final ReentrantLock slotLock = new ReentrantLock();
    private final Condition slotFreed = slotLock.newCondition();
    /** Makes "admit a run" and "close" mutually exclusive, so no run starts after the loop stopped taking them. */
    private final Object lifecycle = new Object();

    private volatile boolean running;
    private volatile String session;
    private ScheduledExecutorService heartbeat; // set by start(), under lifecycle
    private Thread pollThread; // set by start(), under lifecycle
    private boolean heartbeatFailing; // only touched by the heartbeat thread

    /**
     * @param name how the logs call the client ("executor e1", "AX worker w1")
     * @param errors where unexpected throwables are counted (the client's own parts count there too)
     */
    public PullLoop(String name, ExecutorConfig config, ExecutorChannel channel, Client<R> client, LongAdder errors) {
        this.name = name;
        this.config = config;
        this.channel = channel;
        this.client = client;
        this.errors = errors;
    }

    /**
     * Starts polling and heartbeating for {@code session}. {@code heartbeatMillis} is the period a
     * registration gave; 0 when the client has not registered yet, and the poll thread registers
     * first ({@link Client#register}), retrying with backoff until the server answers.
     */
    public void start(String session, long heartbeatMillis) {
        synchronized (lifecycle) {
            if (running || pollThread != null) {
                throw new IllegalStateException(name + " was already started");
            }
            this.session = session;
            running = true;
            heartbeat = Executors.newSingleThreadScheduledExecutor(
                    Thread.ofPlatform().daemon().name("ax-heartbeat").factory());
            if (heartbeatMillis > 0) {
                scheduleHeartbeat(heartbeatMillis);
            }
            boolean registered = heartbeatMillis > 0;
            pollThread = Thread.ofPlatform()
                    .daemon()
                    .name("ax-poll-" + config.executorId())
                    .start(() -> pollLoop(registered));
        }
    }

    /**
     * Stops taking runs; the runs go on, and so do heartbeats until {@link #stopHeartbeat()} (the
     * client decides what becomes of its runs: {@link #heldRuns()}, {@link #awaitIdle},
     * {@link #interruptRuns()}). Idempotent.
     */
    public void stop() {
        synchronized (lifecycle) {
            if (!running) {
                return;
            }
            running = false;
        }
        pollThread.interrupt(); // ends a long poll or a wait for a free slot
        try {
            pollThread.join(1000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Stops renewing the leases held: their runs are the server's to fail once they expire. */
    public void stopHeartbeat() {
        synchronized (lifecycle) {
            if (heartbeat != null) {
                heartbeat.shutdownNow();
            }
        }
    }

    public boolean isRunning() {
        return running;
    }

    public String session() {
        return session;
    }

    /** The runs held right now (claimed, not yet reported or dropped). */
    public Set<RunRef> activeRuns() {
        return Set.copyOf(held.keySet());
    }

    /** The runs held right now. */
    public List<R> heldRuns() {
        return List.copyOf(held.values());
    }

    public R held(RunRef ref) {
        return held.get(ref);
    }

    /** The run's outcome was delivered (or it was dropped): its lease is no longer ours to renew. */
    public void released(RunRef ref, R run) {
        held.remove(ref, run);
    }

    /** Unexpected throwables caught by the loops since start (bugs, not outages). */
    public long errorCount() {
        return errors.sum();
    }

    /** Waits until no run thread is alive, up to {@code limit}; true when idle. */
    public boolean awaitIdle(Duration limit) throws InterruptedException {
        long left = limit.toNanos();
        slotLock.lock();
        try {
            while (busy > 0) {
                if (left <= 0) {
                    return false;
                }
                left = slotFreed.awaitNanos(left);
            }
            return true;
        } finally {
            slotLock.unlock();
        }
    }

    /** Interrupts every run thread still alive (cuts short a report stuck in a slow call). */
    public void interruptRuns() {
        runThreads.forEach(Thread::interrupt);
    }

    /** The heartbeat period: the server's, else a third of its lease, else ten seconds. */
    public static long heartbeatPeriod(RegisterAnswer answer) {
        if (answer.heartbeatMillis() > 0) {
            return answer.heartbeatMillis();
        }
        long fallback = answer.leaseMillis() > 0 ? Math.max(1, answer.leaseMillis() / 3) : FALLBACK_HEARTBEAT_MILLIS;
        log.warn(
                "server gave no heartbeat period (lease {} ms); heartbeating every {} ms",
                answer.leaseMillis(),
                fallback);
        return fallback;
    }

    // ------------------------------------------------------------------------------------------------- poll loop

    private void pollLoop(boolean registered) {
        Backoff backoff = new Backoff();
        boolean ready = registered;
        while (running) {
            try {
                if (!ready) {
                    ready = registerInBackground(backoff);
                } else {
                    pollOnce(backoff);
                }
            } catch (InterruptedException e) {
                if (running) {
                    log.warn("{}: poll loop interrupted, but it is not closing; going on", name);
                }
            } catch (Throwable t) {
                errors.increment();
                log.error("{}: unexpected error in the poll loop; going on", name, t);
                try {
                    backoff.pause(); // a persistent bug must not turn into a hot loop
                } catch (InterruptedException e) {
                    // closing: the loop condition ends it
                }
            }
        }
    }

    private boolean registerInBackground(Backoff backoff) throws InterruptedException {
        try {
            long period = client.register();
            synchronized (lifecycle) {
                if (running && !heartbeat.isShutdown()) {
                    scheduleHeartbeat(period);
                }
            }
            backoff.reset();
            return true;
        } catch (ChannelException e) {
            long pause = backoff.next();
            log.warn("{} cannot register: {}; retrying in {} ms", name, e.getMessage(), pause);
            Thread.sleep(pause);
            return false;
        }
    }

    /** One turn of the poll loop: wait for a free slot, ask for that many runs, start what came. */
    void pollOnce(Backoff backoff) throws InterruptedException {
        int free = awaitFreeSlots();
        if (!running) {
            return;
        }
        List<WorkItem> items;
        long sent = System.nanoTime(); // the server claims at the start of the poll: leases run from after this
        try {
            items = channel.poll(new Poll(config.executorId(), config.groups(), free, config.pollWaitMillis()));
        } catch (ChannelException e) {
            if (!running) {
                return;
            }
            long pause = backoff.next();
            log.warn("{}: poll failed: {}; retrying in {} ms", name, e.getMessage(), pause);
            Thread.sleep(pause);
            return;
        }
        backoff.reset();
        if (items.size() > free) {
            // Their leases are already ticking: refusing them would only delay them until the leases expire.
            log.warn("{}: server sent {} runs for {} free slots; running them all", name, items.size(), free);
        }
        items.forEach(item -> admit(item, sent));
    }

    private int awaitFreeSlots() throws InterruptedException {
        slotLock.lock();
        try {
            while (running && busy >= config.concurrency()) {
                slotFreed.await();
            }
            return config.concurrency() - busy;
        } finally {
            slotLock.unlock();
        }
    }

    private void admit(WorkItem item, long sent) {
        synchronized (lifecycle) {
            if (!running) {
                log.info("{}: not starting run {}: closing; its lease will expire", name, item.ref());
                return;
            }
            R run = client.accept(item, sent);
            if (held.putIfAbsent(item.ref(), run) != null) {
                log.warn(
                        "{}: run {} was handed out again while it runs here; ignoring the duplicate", name, item.ref());
                return;
            }
            slotLock.lock();
            try {
                busy++;
            } finally {
                slotLock.unlock();
            }
            client.threadFor(item).start(() -> execute(item.ref(), run));
        }
    }

    private void execute(RunRef ref, R run) {
        Thread self = Thread.currentThread();
        runThreads.add(self);
        try {
            client.run(run);
        } catch (InterruptedException e) {
            client.abandon(run, name + " shutting down"); // only closing interrupts run threads
        } catch (Throwable t) {
            errors.increment();
            log.error("{}: unexpected error running {}; stopping it", name, ref, t);
            client.abandon(run, name + " error: " + t);
        } finally {
            runThreads.remove(self);
            if (!client.stillReporting(run)) {
                held.remove(ref, run);
            }
            slotLock.lock();
            try {
                busy--;
                slotFreed.signalAll();
            } finally {
                slotLock.unlock();
            }
        }
    }

    // ------------------------------------------------------------------------------------------------- heartbeat

    private void scheduleHeartbeat(long periodMillis) {
        heartbeat.scheduleWithFixedDelay(this::heartbeatTick, periodMillis, periodMillis, TimeUnit.MILLISECONDS);
    }

    private void heartbeatTick() {
        try {
            long sent = System.nanoTime();
            HeartbeatAnswer answer =
                    channel.heartbeat(new Heartbeat(config.executorId(), session, List.copyOf(held.keySet())));
            if (heartbeatFailing) {
                log.info("{}: heartbeats reach the server again", name);
                heartbeatFailing = false;
            }
            answer.abandon().forEach(ref -> letGo(ref, "abandoned by the server (terminated, or the lease was lost)"));
            // The renewed leases were renewed after we sent: they hold from then.
            client.renewed(answer.renewed(), sent);
        } catch (ChannelException e) {
            // The runs go on; if a lease expires meanwhile, the next answer's "abandon" says so.
            if (running && !heartbeatFailing) {
                log.warn("{}: heartbeat failed: {}; runs go on, retrying", name, e.getMessage());
                heartbeatFailing = true;
            }
        } catch (Throwable t) {
            errors.increment();
            log.error("{}: unexpected error in the heartbeat", name, t);
        }
    }

    /** The server let go of a run: stop it here, unless it is over here too. */
    public void letGo(RunRef ref, String reason) {
        R run = held.get(ref);
        if (run == null || client.reported(run)) {
            // A heartbeat that crossed the run's completion: the server let go of a run that is over here too.
            log.debug("{}: server let go of run {}, which is {} here", name, ref, run == null ? "not running" : "over");
            return;
        }
        log.info("{}: stopping run {}: {}", name, ref, reason);
        client.abandon(run, reason);
    }
}
