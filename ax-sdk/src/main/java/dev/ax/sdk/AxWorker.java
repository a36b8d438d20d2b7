package dev.ax.sdk;

import dev.ax.domain.protocol.Register;
import dev.ax.domain.protocol.RegisterAnswer;
import dev.ax.domain.protocol.RunRef;
import dev.ax.domain.protocol.WorkItem;
import dev.ax.executor.ExecutorChannel;
import dev.ax.executor.ExecutorChannel.ChannelException;
import dev.ax.executor.ExecutorConfig;
import dev.ax.executor.Hosts;
import dev.ax.executor.PullLoop;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.LongAdder;
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
 * <p>Threads: the executor's {@link PullLoop} (the same one the shell executor runs) polls for as many
 * runs as there are free slots ({@code concurrency}), waits while all are taken, and heartbeats (which
 * also tells the worker which runs to stop); a <b>timer</b> thread keeps the runs' timeouts; each run
 * gets a <b>handler thread</b> of its own, named after the handler, plus a virtual thread shipping its
 * log.
 *
 * <p>A run keeps its lease from the poll that claimed it until its completion was delivered. When
 * the server says to stop a run (terminated, or its lease was lost), the handler thread is interrupted
 * and nothing more is reported about it: the server has decided already. Loops never die: an
 * unreachable server is retried with backoff; anything else is logged and counted in
 * {@link #errorCount()}, which tests expect to stay zero.
 */
public final class AxWorker implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(AxWorker.class);

    private final ExecutorConfig config;
    private final ExecutorChannel channel;
    private final boolean ownsChannel;
    private final Map<String, AxHandler> handlers;
    private final IdempotencyStore idempotencyStore;
    private final boolean failFast;
    private final LongAdder errors = new LongAdder();
    private final PullLoop<HandlerRun> loop;

    /** Makes start and close mutually exclusive. */
    private final Object lifecycle = new Object();

    private volatile String session;
    private ScheduledExecutorService timer; // set by start(): the runs' timeouts
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
        this.loop = new PullLoop<>("AX worker " + config.executorId(), config, channel, new Runs(), errors);
    }

    public static AxWorkerBuilder builder() {
        return new AxWorkerBuilder();
    }

    /** What the loop does with a run: the handler named by its action, on a thread named after it. */
    private final class Runs implements PullLoop.Client<HandlerRun> {
        @Override
        public HandlerRun accept(WorkItem item, long sentNanos) {
            return new HandlerRun(
                    AxWorker.this,
                    item,
                    HandlerRun.SDK.equals(item.actionType()) ? handlers.get(item.handler()) : null);
        }

        @Override
        public void run(HandlerRun run) throws InterruptedException {
            run.runToEnd();
        }

        @Override
        public void abandon(HandlerRun run, String reason) {
            run.abandon(reason);
        }

        @Override
        public boolean stillReporting(HandlerRun run) {
            // A handler's outcome is delivered by HandlerRun, retried after its thread ended; it releases the run then.
            return !run.abandoned();
        }

        @Override
        public Thread.Builder threadFor(WorkItem item) {
            return Thread.ofPlatform()
                    .daemon()
                    .name("ax-handler-" + (item.handler() == null ? item.actionType() : item.handler()) + "-"
                            + item.instanceId());
        }

        @Override
        public long register() {
            return AxWorker.this.register();
        }
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
            long heartbeat = 0;
            try {
                heartbeat = register();
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
            loop.start(session, heartbeat);
        }
        return this;
    }

    /**
     * Stops taking runs, gives the running handlers {@code shutdownGrace} to finish and report (their
     * leases still renewed), then interrupts the rest; those are not reported: their leases expire on the
     * server, which fails them as EXECUTOR_LOST and lets the task's retry policy decide.
     */
    @Override
    public void close() {
        synchronized (lifecycle) {
            if (!loop.isRunning()) {
                closeChannel();
                return;
            }
            loop.stop();
        }
        try {
            if (!loop.awaitIdle(config.killGrace())) {
                loop.heldRuns().forEach(run -> run.abandon("worker shutting down"));
                if (!loop.awaitIdle(Duration.ofMillis(500))) {
                    log.warn(
                            "AX worker {}: handlers of runs {} ignore their interruption and still run",
                            config.executorId(),
                            loop.activeRuns());
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            loop.stopHeartbeat();
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
        return loop.activeRuns();
    }

    /** Unexpected throwables caught by the loops since start (bugs, not outages). */
    public long errorCount() {
        return errors.sum();
    }

    public boolean isRunning() {
        return loop.isRunning();
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
        loop.released(run.ref(), run);
    }

    // ------------------------------------------------------------------------------------ registration

    /** Registers this worker's session; returns the heartbeat period. */
    private long register() {
        RegisterAnswer answer = channel.register(new Register(
                config.executorId(),
                session,
                config.groups(),
                Hosts.name(),
                ProcessHandle.current().pid(),
                config.version(),
                List.copyOf(loop.activeRuns())));
        answer.abandon().forEach(ref -> loop.letGo(ref, "abandoned by the server at registration"));
        channel.leaseKnown(answer.leaseMillis());
        log.info(
                "AX worker {} registered (groups {}, handlers {}, concurrency {}, lease {} ms)",
                config.executorId(),
                config.groups(),
                new TreeSet<>(handlers.keySet()),
                config.concurrency(),
                answer.leaseMillis());
        return PullLoop.heartbeatPeriod(answer);
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
}
