package dev.ax.executor;

import dev.ax.domain.protocol.Heartbeat;
import dev.ax.domain.protocol.HeartbeatAnswer;
import dev.ax.domain.protocol.Register;
import dev.ax.domain.protocol.RegisterAnswer;
import dev.ax.domain.protocol.RunRef;
import dev.ax.domain.protocol.WorkItem;
import dev.ax.executor.ExecutorChannel.ChannelException;
import dev.ax.executor.reaper.Reaper;
import dev.ax.executor.shell.ShellRunner;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The executor: pulls runs from a server, runs them, streams their output and reports how they ended.
 *
 * <p>Its {@link PullLoop} polls for as many runs as there are free slots and heartbeats their leases;
 * each run gets a virtual thread running {@link RunWorker#runToEnd} (start, report "started", wait,
 * report the outcome), plus one in its {@link LogShipper}, so that a slow server never blocks the
 * reading of a process's output. Beside it runs the {@link Reaper}, a process of its own that kills
 * the runs' process trees should this one die or stop renewing their leases.
 *
 * <p>A run keeps its lease from the poll that claimed it until its completion was delivered. The
 * server may tell us to stop a run at any time (heartbeat "abandon", a refused report): the process
 * tree is killed and nothing more is reported about it, because the server has already decided its
 * fate.
 */
public final class ExecutorAgent implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ExecutorAgent.class);

    private final ExecutorConfig config;
    private final ExecutorChannel channel;
    private final RunWorker worker;
    private final LongAdder errors = new LongAdder();
    private final PullLoop<ActiveRun> loop;

    /** Makes start and close mutually exclusive. */
    private final Object lifecycle = new Object();

    private volatile long leaseMillis;
    private volatile LeaseTerms lease;
    private volatile long heartbeatMillis;
    private Reaper reaper; // set by start(), under lifecycle
    private volatile boolean started; // written under lifecycle
    private volatile boolean closed; // written under lifecycle

    /** An agent with its own shell runner, using the config's kill grace. */
    public ExecutorAgent(ExecutorConfig config, ExecutorChannel channel) {
        this(config, channel, new ShellRunner(config.killGrace()));
    }

    public ExecutorAgent(ExecutorConfig config, ExecutorChannel channel, ShellRunner runner) {
        this(config, channel, runner, LogShipper.Limits.DEFAULT);
    }

    ExecutorAgent(ExecutorConfig config, ExecutorChannel channel, ShellRunner runner, LogShipper.Limits logLimits) {
        this.config = Objects.requireNonNull(config, "config");
        this.channel = Objects.requireNonNull(channel, "channel");
        this.loop = new PullLoop<>("executor " + config.executorId(), config, channel, new Runs(), errors);
        this.worker = new RunWorker(
                config.executorId(),
                channel,
                Objects.requireNonNull(runner, "runner"),
                Objects.requireNonNull(logLimits, "logLimits"),
                // Reports go on while the agent drains (it takes no runs then, but delivers the outcomes of those it
                // holds), and stop once it closes.
                () -> started && !closed,
                errors);
    }

    /** What the loop does with a run: a shell or HTTP action run by {@link RunWorker}. */
    private final class Runs implements PullLoop.Client<ActiveRun> {
        @Override
        public ActiveRun accept(WorkItem item, long sentNanos) {
            return new ActiveRun(item, lease.holdsUntil(sentNanos));
        }

        @Override
        public void run(ActiveRun run) throws InterruptedException {
            worker.runToEnd(run);
        }

        @Override
        public void abandon(ActiveRun run, String reason) {
            run.abandon(reason);
        }

        @Override
        public boolean reported(ActiveRun run) {
            return run.reported();
        }

        @Override
        public void renewed(List<RunRef> refs, long sentNanos) {
            long until = lease.holdsUntil(sentNanos);
            refs.forEach(ref -> {
                ActiveRun run = loop.held(ref);
                if (run != null) {
                    run.renewed(until);
                }
            });
            reaper.renew(refs, until);
        }

        @Override
        public Thread.Builder threadFor(WorkItem item) {
            return Thread.ofVirtual().name("ax-run-" + item.instanceId());
        }
    }

    /**
     * Registers with a new session, then starts polling and heartbeating. A server that cannot be reached or refuses
     * the executor fails the start with a {@link ChannelException} (a wrong URL or token shows at once); after that,
     * outages are ridden out.
     */
    public void start() {
        synchronized (lifecycle) {
            if (started) {
                throw new IllegalStateException("executor " + config.executorId() + " was already started");
            }
            String session = UUID.randomUUID().toString();
            // The reaper first: no process of this life may start before something outside this JVM guards it.
            Reaper guard;
            try {
                guard = Reaper.start(
                        config.executorId(),
                        session,
                        ref -> loop.letGo(ref, "killed by the reaper: its lease was not renewed in time"));
            } catch (IOException e) {
                throw new IllegalStateException(
                        "executor " + config.executorId() + " cannot start its reaper, which kills its runs'"
                                + " processes should it die or stall: " + e.getMessage(),
                        e);
            }
            RegisterAnswer answer;
            try {
                answer = channel.register(new Register(
                        config.executorId(),
                        session,
                        config.groups(),
                        Hosts.name(),
                        ProcessHandle.current().pid(),
                        config.version(),
                        List.of(),
                        config.labels()));
            } catch (RuntimeException e) {
                guard.close();
                throw e;
            }
            reaper = guard;
            worker.guardWith(guard, this::renewNow);
            channel.leaseKnown(answer.leaseMillis());
            guard.killEarlierLives(answer.lost());
            leaseMillis = answer.leaseMillis();
            lease = new LeaseTerms(answer.leaseMillis());
            heartbeatMillis = PullLoop.heartbeatPeriod(answer);
            started = true;
            loop.start(session, heartbeatMillis);
            log.info(
                    "executor {} registered (session {}, groups {}, concurrency {}, lease {} ms, heartbeat {} ms)",
                    config.executorId(),
                    session,
                    config.groups(),
                    config.concurrency(),
                    leaseMillis,
                    heartbeatMillis);
        }
    }

    /**
     * Takes no more runs and waits up to {@code timeout} for the runs it holds to end and be reported (their heartbeats
     * go on meanwhile); true when none is left. {@link #close()} then ends what is left: the server retries those once
     * their leases expire.
     */
    public boolean drain(Duration timeout) {
        synchronized (lifecycle) {
            if (!loop.isRunning()) {
                return loop.activeRuns().isEmpty();
            }
            loop.stop(); // no run is admitted after this
        }
        int held = loop.activeRuns().size();
        if (held > 0) {
            log.info("executor {}: draining, waiting up to {} for {} runs to end", config.executorId(), timeout, held);
        }
        try {
            boolean idle = loop.awaitIdle(timeout);
            if (!idle) {
                log.warn(
                        "executor {}: runs {} still going after {}; left to their leases",
                        config.executorId(),
                        loop.activeRuns(),
                        timeout);
            }
            return idle;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /**
     * Stops polling and heartbeating and kills every running process tree. Their runs are not reported: their leases
     * expire on the server, which fails them as EXECUTOR_LOST and lets the retry policy decide. Returns within about
     * {@code killGrace} + 1 s.
     */
    @Override
    public void close() {
        synchronized (lifecycle) {
            if (closed || !started) {
                return;
            }
            closed = true;
            loop.stop(); // no run is admitted after this (a drain may have stopped it already)
            loop.stopHeartbeat();
            loop.heldRuns().forEach(run -> run.abandon("executor shutting down"));
        }
        try {
            // Run threads end once their processes are dead: up to killGrace after SIGTERM.
            if (!loop.awaitIdle(config.killGrace().plusMillis(500))) {
                loop.interruptRuns(); // cuts short a report stuck in a slow HTTP call
                if (!loop.awaitIdle(Duration.ofMillis(300))) {
                    log.warn("executor {}: runs {} did not stop in time", config.executorId(), loop.activeRuns());
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        reaper.close(); // kills what is left of runs that did not stop in time
        log.info("executor {} closed", config.executorId());
    }

    /** The runs this executor holds right now (claimed and not yet reported or dropped). */
    public Set<RunRef> activeRuns() {
        return loop.activeRuns();
    }

    /** Unexpected throwables caught by the loops since start (bugs, not outages). */
    public long errorCount() {
        return errors.sum();
    }

    /** This process's session id, new at each start; null before. */
    public String session() {
        return loop.session();
    }

    public long leaseMillis() {
        return leaseMillis;
    }

    public long heartbeatMillis() {
        return heartbeatMillis;
    }

    /**
     * Renews one run's lease at once, for a run about to start whose claim is too old to count on: a heartbeat of its
     * own. True if the server renewed it.
     */
    private boolean renewNow(ActiveRun run) {
        try {
            long sent = System.nanoTime();
            HeartbeatAnswer answer =
                    channel.heartbeat(new Heartbeat(config.executorId(), loop.session(), List.of(run.ref())));
            if (!answer.renewed().contains(run.ref())) {
                return false;
            }
            long until = lease.holdsUntil(sent);
            run.renewed(until);
            reaper.renew(List.of(run.ref()), until);
            return run.leaseHeld();
        } catch (ChannelException e) {
            return false;
        }
    }
}
