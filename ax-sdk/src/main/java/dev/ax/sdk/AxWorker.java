package dev.ax.sdk;

import dev.ax.domain.protocol.Heartbeat;
import dev.ax.domain.protocol.HeartbeatAnswer;
import dev.ax.domain.protocol.Poll;
import dev.ax.domain.protocol.Register;
import dev.ax.domain.protocol.RegisterAnswer;
import dev.ax.domain.protocol.RunRef;
import dev.ax.domain.protocol.WorkItem;
import dev.ax.executor.ExecutorChannel;
import dev.ax.executor.ExecutorChannel.ChannelException;
import dev.ax.executor.ExecutorConfig;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
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
 * Runs AX jobs inside your service: registers named {@link AxHandler}s and pulls runs of its groups
 * from an AX server with the executor protocol (register, long-poll, heartbeat, log, complete), the
 * same one a shell executor speaks, so leases, fencing and retries work the same way.
 *
 * <pre>
 * AxWorker worker = AxWorker.builder()
 *         .server(URI.create("http://ax:7070")).token(System.getenv("AX_TOKEN"))
 *         .group("orders")
 *         .handler("syncOrders", ctx -&gt; { ctx.log("syncing"); return "synced"; })
 *         .build()
 *         .start();
 * </pre>
 *
 * <p>Threads: one <b>poll loop</b> (virtual) asks for as many runs as there are free slots
 * ({@code concurrency}) and waits while all are taken; one <b>timer</b> thread heartbeats (which also
 * tells the worker which runs to stop) and keeps the runs' timeouts; each run gets a <b>handler
 * thread</b> of its own, named after the handler, plus a virtual thread shipping its log.
 *
 * <p>A run keeps its lease from the poll that claimed it until its completion was delivered. When
 * the server says to stop a run (terminated, or its lease was lost), the handler thread is interrupted
 * and nothing more is reported about it: the server has decided already. Loops never die: an
 * unreachable server is retried with backoff; anything else is logged and counted in
 * {@link #errorCount()}, which tests expect to stay zero.
 */
public final class AxWorker implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(AxWorker.class);
    static final long FALLBACK_HEARTBEAT_MILLIS = 10_000;

    private final ExecutorConfig config;
    private final ExecutorChannel channel;
    private final boolean ownsChannel;
    private final Map<String, AxHandler> handlers;
    private final IdempotencyStore idempotencyStore;
    private final boolean failFast;

    /** The runs whose lease this worker holds: what heartbeats renew. */
    private final ConcurrentHashMap<RunRef, HandlerRun> held = new ConcurrentHashMap<>();

    private final LongAdder errors = new LongAdder();
    /** Handler threads alive; the poll loop waits on {@link #slotFreed} while they fill every slot. */
    private final ReentrantLock slotLock = new ReentrantLock();

    private final Condition slotFreed = slotLock.newCondition();
    private int busy; // guarded by slotLock
    /** Makes "admit a run" and "close" mutually exclusive, so no run starts after close() stopped them all. */
    private final Object lifecycle = new Object();

    private volatile boolean running;
    private volatile boolean registered;
    private volatile String session;
    private ScheduledExecutorService timer; // set by start()
    private Thread pollThread; // set by start()
    private boolean heartbeatFailing; // only touched on the timer thread
    private boolean started; // guarded by lifecycle

    AxWorker(
            ExecutorConfig config,
            ExecutorChannel channel,
            boolean ownsChannel,
            Map<String, AxHandler> handlers,
            IdempotencyStore idempotencyStore,
            boolean failFast) {
        this.config = config;
        this.channel = channel;
        this.ownsChannel = ownsChannel;
        this.handlers = Map.copyOf(handlers);
        this.idempotencyStore = idempotencyStore;
        this.failFast = failFast;
    }

    public static AxWorkerBuilder builder() {
        return new AxWorkerBuilder();
    }

    /**
     * Registers with the server, then starts polling and heartbeating; returns this worker. With
     * {@code failFast} (the default) a server that cannot be reached or refuses the token fails the start
     * with a {@link ChannelException}, so a wrong URL or token shows at once; without it, the worker keeps
     * trying to register in the background. After registering, outages are ridden out.
     */
    public AxWorker start() {
        synchronized (lifecycle) {
            if (started) {
                throw new IllegalStateException("worker " + config.executorId() + " was already started");
            }
            session = UUID.randomUUID().toString();
            timer = Executors.newSingleThreadScheduledExecutor(
                    Thread.ofPlatform().daemon().name("ax-worker-timer").factory());
            try {
                register();
            } catch (ChannelException e) {
                if (failFast) {
                    timer.shutdownNow();
                    throw e;
                }
                log.warn(
                        "AX worker {} cannot register yet: {}; retrying in the background",
                        config.executorId(),
                        e.getMessage());
            }
            started = true;
            running = true;
            pollThread = Thread.ofVirtual().name("ax-worker-poll").start(this::pollLoop);
        }
        return this;
    }

    /**
     * Stops taking runs, gives the running handlers {@code shutdownGrace} to finish and report, then
     * interrupts the rest; those are not reported: their leases expire on the server, which fails them as
     * EXECUTOR_LOST and lets the task's retry policy decide.
     */
    @Override
    public void close() {
        synchronized (lifecycle) {
            if (!running) {
                closeChannel();
                return;
            }
            running = false;
        }
        pollThread.interrupt(); // ends a long-poll or a wait for a free slot
        try {
            if (!awaitIdle(config.killGrace())) {
                held.values().forEach(run -> run.abandon("worker shutting down"));
                if (!awaitIdle(Duration.ofMillis(500))) {
                    log.warn(
                            "AX worker {}: handlers of runs {} ignore their interruption and still run",
                            config.executorId(),
                            held.keySet());
                }
            }
            pollThread.join(1000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            timer.shutdownNow();
            closeChannel();
        }
        log.info("AX worker {} closed", config.executorId());
    }

    public String executorId() {
        return config.executorId();
    }

    public List<String> groups() {
        return config.groups();
    }

    public Set<String> handlerNames() {
        return handlers.keySet();
    }

    /** The runs this worker holds right now (claimed, not yet reported or dropped). */
    public Set<RunRef> activeRuns() {
        return Set.copyOf(held.keySet());
    }

    /** Unexpected throwables caught by the loops since start (bugs, not outages). */
    public long errorCount() {
        return errors.sum();
    }

    public boolean isRunning() {
        return running;
    }

    // ------------------------------------------------------------------------------- used by HandlerRun

    ExecutorChannel channel() {
        return channel;
    }

    IdempotencyStore idempotencyStore() {
        return idempotencyStore;
    }

    ScheduledExecutorService timer() {
        return timer;
    }

    Duration shutdownGrace() {
        return config.killGrace();
    }

    /** The run's completion was delivered (or dropped): its lease is no longer ours to renew. */
    void released(HandlerRun run) {
        held.remove(run.ref(), run);
    }

    // ------------------------------------------------------------------------------------ poll loop

    private void register() {
        RegisterAnswer answer = channel.register(new Register(
                config.executorId(),
                session,
                config.groups(),
                Hosts.name(),
                ProcessHandle.current().pid(),
                config.version(),
                List.copyOf(held.keySet())));
        answer.abandon().forEach(ref -> abandon(ref, "abandoned by the server at registration"));
        channel.leaseKnown(answer.leaseMillis());
        long heartbeat = heartbeatPeriod(answer);
        timer.scheduleWithFixedDelay(this::heartbeatTick, heartbeat, heartbeat, TimeUnit.MILLISECONDS);
        registered = true;
        log.info(
                "AX worker {} registered (groups {}, handlers {}, concurrency {}, lease {} ms)",
                config.executorId(),
                config.groups(),
                new TreeSet<>(handlers.keySet()),
                config.concurrency(),
                answer.leaseMillis());
    }

    private void pollLoop() {
        Backoff backoff = new Backoff();
        while (running) {
            try {
                if (!registered) {
                    registerInBackground(backoff);
                } else {
                    pollOnce(backoff);
                }
            } catch (InterruptedException e) {
                if (running) {
                    log.warn("AX worker poll loop interrupted, but the worker is not closing; going on");
                }
            } catch (Throwable t) {
                errors.increment();
                log.error("unexpected error in the AX worker poll loop; going on", t);
                try {
                    backoff.pause(); // a persistent bug must not turn into a hot loop
                } catch (InterruptedException e) {
                    // closing: the loop condition ends it
                }
            }
        }
    }

    private void registerInBackground(Backoff backoff) throws InterruptedException {
        try {
            register();
            backoff.reset();
        } catch (ChannelException e) {
            long pause = backoff.next();
            log.warn("AX worker {} cannot register: {}; retrying in {} ms", config.executorId(), e.getMessage(), pause);
            Thread.sleep(pause);
        }
    }

    /** One turn: wait for a free slot, ask for that many runs, start what came. */
    void pollOnce(Backoff backoff) throws InterruptedException {
        int free = awaitFreeSlots();
        if (!running) {
            return;
        }
        List<WorkItem> items;
        try {
            items = channel.poll(new Poll(config.executorId(), config.groups(), free, config.pollWaitMillis()));
        } catch (ChannelException e) {
            if (!running) {
                return;
            }
            long pause = backoff.next();
            log.warn("AX worker poll failed: {}; retrying in {} ms", e.getMessage(), pause);
            Thread.sleep(pause);
            return;
        }
        backoff.reset();
        items.forEach(this::admit);
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

    private void admit(WorkItem item) {
        synchronized (lifecycle) {
            if (!running) {
                log.info("not starting run {}: the worker is closing; its lease will expire", item.ref());
                return;
            }
            HandlerRun run = new HandlerRun(
                    this, item, HandlerRun.SDK.equals(item.actionType()) ? handlers.get(item.handler()) : null);
            if (held.putIfAbsent(item.ref(), run) != null) {
                log.warn("run {} was handed out again while it runs here; ignoring the duplicate", item.ref());
                return;
            }
            slotLock.lock();
            try {
                busy++;
            } finally {
                slotLock.unlock();
            }
            String name = "ax-handler-" + (item.handler() == null ? item.actionType() : item.handler()) + "-"
                    + item.instanceId();
            Thread.ofPlatform().daemon().name(name).start(() -> execute(run));
        }
    }

    private void execute(HandlerRun run) {
        try {
            run.runToEnd();
        } catch (InterruptedException e) {
            run.abandon("worker shutting down");
        } catch (Throwable t) {
            errors.increment();
            log.error("unexpected error running {}", run.ref(), t);
            run.abandon("worker error: " + t);
        } finally {
            if (run.abandoned()) {
                held.remove(run.ref(), run);
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

    /** Waits until no handler thread is alive, up to {@code limit}; true when idle. */
    private boolean awaitIdle(Duration limit) throws InterruptedException {
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

    // ------------------------------------------------------------------------------------ heartbeat

    private void heartbeatTick() {
        try {
            HeartbeatAnswer answer =
                    channel.heartbeat(new Heartbeat(config.executorId(), session, List.copyOf(held.keySet())));
            if (heartbeatFailing) {
                log.info("AX worker heartbeats reach the server again");
                heartbeatFailing = false;
            }
            answer.abandon()
                    .forEach(ref -> abandon(ref, "abandoned by the server (terminated, or the lease was lost)"));
        } catch (ChannelException e) {
            // Handlers keep running; if a lease expires meanwhile, the next answer's "abandon" says so.
            if (running && !heartbeatFailing) {
                log.warn("AX worker heartbeat failed: {}; runs go on, retrying", e.getMessage());
                heartbeatFailing = true;
            }
        } catch (Throwable t) {
            errors.increment();
            log.error("unexpected error in the AX worker heartbeat", t);
        }
    }

    private void abandon(RunRef ref, String reason) {
        HandlerRun run = held.remove(ref);
        if (run == null) {
            log.debug("server abandoned run {}, which is not running here", ref);
            return;
        }
        log.info("stopping run {} ({}): {}", ref, run.item().handler(), reason);
        run.abandon(reason);
    }

    private void closeChannel() {
        if (ownsChannel && channel instanceof AutoCloseable closeable) {
            try {
                closeable.close();
            } catch (Exception e) {
                log.debug("closing the channel: {}", e.toString());
            }
        }
    }

    private static long heartbeatPeriod(RegisterAnswer answer) {
        if (answer.heartbeatMillis() > 0) {
            return answer.heartbeatMillis();
        }
        return answer.leaseMillis() > 0 ? Math.max(1, answer.leaseMillis() / 3) : FALLBACK_HEARTBEAT_MILLIS;
    }
}
