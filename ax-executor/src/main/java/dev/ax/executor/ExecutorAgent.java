package dev.ax.executor;

import dev.ax.domain.protocol.Heartbeat;
import dev.ax.domain.protocol.HeartbeatAnswer;
import dev.ax.domain.protocol.Poll;
import dev.ax.domain.protocol.Register;
import dev.ax.domain.protocol.RegisterAnswer;
import dev.ax.domain.protocol.RunRef;
import dev.ax.domain.protocol.WorkItem;
import dev.ax.executor.ExecutorChannel.ChannelException;
import dev.ax.executor.reaper.Reaper;
import dev.ax.executor.shell.ShellRunner;
import java.io.IOException;
import java.net.InetAddress;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The executor: pulls runs from a server, runs them, streams their output and reports how they ended.
 *
 * <p>Threads, and why each exists:
 * <ul>
 *   <li>one <b>poll loop</b> (virtual thread): long-polls for as many runs as there are free slots, and while every
 *       slot is busy waits on a condition until a run ends, so the server never hands us work we cannot start;</li>
 *   <li>one <b>heartbeat</b> thread (a scheduled executor): renews the leases of every run in {@link #activeRuns()};
 *       it is separate from the poll loop because a long-poll can block for {@code pollWaitMillis}, longer than a
 *       lease may go unrenewed;</li>
 *   <li>one virtual thread <b>per run</b>, running {@link RunWorker#runToEnd} (start, report "started", wait, report
 *       the outcome); plus one per run in its {@link LogShipper} so that a slow server never blocks the reading of a
 *       process's output.</li>
 * </ul>
 *
 * <p>A run stays in {@link #activeRuns()} (and so keeps its lease) from the poll that claimed it until its completion
 * was delivered. The server may tell us to stop a run at any time (heartbeat "abandon", a refused report): the
 * process tree is killed and nothing more is reported about it, because the server has already decided its fate.
 *
 * <p>Loops never die: a {@link ChannelException} (server unreachable) is retried with backoff, any other throwable is
 * logged and counted in {@link #errorCount()}, which tests expect to stay zero.
 */
public final class ExecutorAgent implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ExecutorAgent.class);
    static final long FALLBACK_HEARTBEAT_MILLIS = 10_000;

    private final ExecutorConfig config;
    private final ExecutorChannel channel;
    private final RunWorker worker;

    private final ConcurrentHashMap<RunRef, ActiveRun> runs = new ConcurrentHashMap<>();
    private final LongAdder errors = new LongAdder();
    /** The poll loop waits here while all slots are taken; a run signals when it leaves {@link #runs}. */
    private final ReentrantLock slotLock = new ReentrantLock();

    private final Condition slotFreed = slotLock.newCondition();
    /**
     * Makes "admit a run" and "close" mutually exclusive: otherwise a poll answer arriving while we close could put a
     * run into {@link #runs} just after close() abandoned all of them, and that process would outlive the agent.
     */
    private final Object lifecycle = new Object();

    private volatile boolean running;
    private volatile String session;
    private volatile long leaseMillis;
    private volatile LeaseTerms lease;
    private volatile long heartbeatMillis;
    private Reaper reaper; // set by start(), under lifecycle
    private ExecutorService runThreads; // set by start(), under lifecycle
    private ScheduledExecutorService heartbeat; // set by start(), under lifecycle
    private Thread pollThread; // set by start(), under lifecycle
    private boolean heartbeatFailing; // only touched by the heartbeat thread

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
        this.worker = new RunWorker(
                config.executorId(),
                channel,
                Objects.requireNonNull(runner, "runner"),
                Objects.requireNonNull(logLimits, "logLimits"),
                () -> running,
                errors);
    }

    /**
     * Registers with a new session, then starts polling and heartbeating. A server that cannot be reached or refuses
     * the executor fails the start with a {@link ChannelException} (a wrong URL or token shows at once); after that,
     * outages are ridden out.
     */
    public void start() {
        synchronized (lifecycle) {
            if (running || runThreads != null) {
                throw new IllegalStateException("executor " + config.executorId() + " was already started");
            }
            String newSession = UUID.randomUUID().toString();
            // The reaper first: no process of this life may start before something outside this JVM guards it.
            Reaper guard;
            try {
                guard = Reaper.start(
                        config.executorId(),
                        newSession,
                        ref -> abandon(ref, "killed by the reaper: its lease was not renewed in time"));
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
                        newSession,
                        config.groups(),
                        hostName(),
                        ProcessHandle.current().pid(),
                        config.version(),
                        List.copyOf(runs.keySet()),
                        config.labels()));
            } catch (RuntimeException e) {
                guard.close();
                throw e;
            }
            reaper = guard;
            worker.guardWith(guard, this::renewNow);
            channel.leaseKnown(answer.leaseMillis());
            guard.killEarlierLives(answer.lost());
            session = newSession;
            leaseMillis = answer.leaseMillis();
            lease = new LeaseTerms(answer.leaseMillis());
            heartbeatMillis = heartbeatPeriod(answer);
            answer.abandon().forEach(ref -> abandon(ref, "abandoned by the server at registration"));
            running = true;
            runThreads = Executors.newThreadPerTaskExecutor(
                    Thread.ofVirtual().name("ax-run-", 0).factory());
            heartbeat = Executors.newSingleThreadScheduledExecutor(
                    Thread.ofPlatform().daemon().name("ax-heartbeat").factory());
            heartbeat.scheduleWithFixedDelay(
                    this::heartbeatTick, heartbeatMillis, heartbeatMillis, TimeUnit.MILLISECONDS);
            // A platform thread: close() interrupts it to end a long poll or a wait for a free slot, and on a platform
            // thread that interrupt never closes a socket in the middle of a read (on a virtual thread it does: the
            // in-process channel's claim lost its database connection mid-commit).
            pollThread = Thread.ofPlatform()
                    .daemon()
                    .name("ax-poll-" + config.executorId())
                    .start(this::pollLoop);
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
     * Stops polling and heartbeating and kills every running process tree. Their runs are not reported: their leases
     * expire on the server, which fails them as EXECUTOR_LOST and lets the retry policy decide. Returns within about
     * {@code killGrace} + 1 s.
     */
    @Override
    public void close() {
        synchronized (lifecycle) {
            if (!running) {
                return;
            }
            running = false;
            runs.values().forEach(run -> run.abandon("executor shutting down"));
            runThreads.shutdown();
        }
        heartbeat.shutdownNow();
        pollThread.interrupt(); // ends a long-poll or a wait for a free slot
        try {
            // Run threads end once their processes are dead: up to killGrace after SIGTERM.
            if (!runThreads.awaitTermination(config.killGrace().toMillis() + 500, TimeUnit.MILLISECONDS)) {
                runThreads.shutdownNow(); // cuts short a report stuck in a slow HTTP call
                if (!runThreads.awaitTermination(300, TimeUnit.MILLISECONDS)) {
                    log.warn("executor {}: runs {} did not stop in time", config.executorId(), runs.keySet());
                }
            }
            pollThread.join(100);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        reaper.close(); // kills what is left of runs that did not stop in time
        log.info("executor {} closed", config.executorId());
    }

    /** The runs this executor holds right now (claimed and not yet reported or dropped). */
    public Set<RunRef> activeRuns() {
        return Set.copyOf(runs.keySet());
    }

    /** Unexpected throwables caught by the loops since start (bugs, not outages). */
    public long errorCount() {
        return errors.sum();
    }

    /** This process's session id, new at each start; null before. */
    public String session() {
        return session;
    }

    public long leaseMillis() {
        return leaseMillis;
    }

    public long heartbeatMillis() {
        return heartbeatMillis;
    }

    // ------------------------------------------------------------------------------------------------- poll loop

    private void pollLoop() {
        Backoff backoff = new Backoff();
        while (running) {
            try {
                pollOnce(backoff);
            } catch (InterruptedException e) {
                if (running) {
                    log.warn("poll loop interrupted, but the executor is not closing; going on");
                }
            } catch (Throwable t) {
                errors.increment();
                log.error("unexpected error in the poll loop; going on", t);
                try {
                    backoff.pause(); // a persistent bug must not turn into a hot loop
                } catch (InterruptedException e) {
                    // closing: the loop condition ends it
                }
            }
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
            log.warn("poll failed: {}; retrying in {} ms", e.getMessage(), pause);
            Thread.sleep(pause);
            return;
        }
        backoff.reset();
        if (items.size() > free) {
            // Their leases are already ticking: refusing them would only delay them until the leases expire.
            log.warn("server sent {} runs for {} free slots; running them all", items.size(), free);
        }
        items.forEach(item -> admit(item, lease.holdsUntil(sent)));
    }

    private int awaitFreeSlots() throws InterruptedException {
        slotLock.lock();
        try {
            while (running && runs.size() >= config.concurrency()) {
                slotFreed.await();
            }
            return config.concurrency() - runs.size();
        } finally {
            slotLock.unlock();
        }
    }

    private void admit(WorkItem item, long holdsUntilNanos) {
        synchronized (lifecycle) {
            if (!running) {
                log.info("not starting run {}: executor is closing; its lease will expire", item.ref());
                return;
            }
            ActiveRun run = new ActiveRun(item, holdsUntilNanos);
            if (runs.putIfAbsent(item.ref(), run) != null) {
                log.warn("run {} was handed out again while it is running here; ignoring the duplicate", item.ref());
                return;
            }
            runThreads.execute(() -> execute(run));
        }
    }

    // ------------------------------------------------------------------------------------------------- heartbeat

    private void heartbeatTick() {
        try {
            long sent = System.nanoTime();
            List<RunRef> held = List.copyOf(runs.keySet());
            HeartbeatAnswer answer = channel.heartbeat(new Heartbeat(config.executorId(), session, held));
            if (heartbeatFailing) {
                log.info("heartbeats reach the server again");
                heartbeatFailing = false;
            }
            answer.abandon().forEach(ref -> abandon(ref, "abandoned by the server (lease lost or terminated)"));
            // The renewed leases were renewed after we sent: they hold from then, here and in the reaper.
            List<RunRef> renewed = answer.renewed();
            long until = lease.holdsUntil(sent);
            renewed.forEach(ref -> {
                ActiveRun run = runs.get(ref);
                if (run != null) {
                    run.renewed(until);
                }
            });
            reaper.renew(renewed, until);
        } catch (ChannelException e) {
            // The processes keep running; if the lease expires meanwhile, the next answer's "abandon" says so.
            if (running && !heartbeatFailing) {
                log.warn("heartbeat failed: {}; runs go on, retrying every {} ms", e.getMessage(), heartbeatMillis);
                heartbeatFailing = true;
            }
        } catch (Throwable t) {
            errors.increment();
            log.error("unexpected error in the heartbeat", t);
        }
    }

    /**
     * Renews one run's lease at once, for a run about to start whose claim is too old to count on: a heartbeat of its
     * own. True if the server renewed it.
     */
    private boolean renewNow(ActiveRun run) {
        try {
            long sent = System.nanoTime();
            HeartbeatAnswer answer = channel.heartbeat(new Heartbeat(config.executorId(), session, List.of(run.ref())));
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

    private void abandon(RunRef ref, String reason) {
        ActiveRun run = runs.get(ref);
        if (run == null || run.reported()) {
            // A heartbeat that crossed the run's completion: the server let go of a run that is over here too.
            log.debug("server let go of run {}, which is {} here", ref, run == null ? "not running" : "over");
            return;
        }
        log.info("stopping run {}: {}", ref, reason);
        run.abandon(reason);
    }

    // ---------------------------------------------------------------------------------------------- one run

    private void execute(ActiveRun run) {
        try {
            worker.runToEnd(run);
        } catch (InterruptedException e) {
            run.abandon("executor shutting down"); // only close() interrupts run threads
        } catch (Throwable t) {
            errors.increment();
            log.error("unexpected error running {}; killing it", run.ref(), t);
            run.abandon("executor error: " + t);
        } finally {
            runs.remove(run.ref());
            slotLock.lock();
            try {
                slotFreed.signal();
            } finally {
                slotLock.unlock();
            }
        }
    }

    // ------------------------------------------------------------------------------------------------- helpers

    private static long heartbeatPeriod(RegisterAnswer answer) {
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

    private static String hostName() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (Exception e) {
            String env = System.getenv("HOSTNAME");
            return env == null || env.isBlank() ? "unknown" : env;
        }
    }
}
