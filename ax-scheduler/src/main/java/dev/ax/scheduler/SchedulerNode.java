package dev.ax.scheduler;

import dev.ax.domain.time.AxClock;
import dev.ax.store.Store;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * The control plane of one server node: the firing loop, the housekeeping loop, the dispatcher
 * executors talk to, and the task service the API calls. Holds no state another node needs.
 */
public final class SchedulerNode implements AutoCloseable {
    private final NodeContext ctx;
    private final Firing firing;
    private final Dispatcher dispatcher;
    private final Housekeeping housekeeping;
    private final Tasks tasks;
    private final Runs runs;
    private final Approvals approvals;
    private final Backfills backfills;
    private final Dependencies dependencies;
    private final WorkflowLoop workflows;
    private final Canaries canaries;
    private final TestRuns testRuns;
    private final Secrets secrets;
    private final Tokens tokens;
    private final Teams teams;
    private final AuditLog audit;
    private final LoopRunner firingLoop;
    private final LoopRunner housekeepingLoop;
    private final Retention retention;
    private final LoopRunner retentionLoop;
    private volatile long tasksSeen;

    public SchedulerNode(String nodeId, Store store, AxClock clock, SchedulerConfig config) {
        this(nodeId, store, clock, config, WebhookSender.NONE);
    }

    /** A node without a secret key: it can neither set nor read secrets ({@link Keyring#NONE}). */
    public SchedulerNode(String nodeId, Store store, AxClock clock, SchedulerConfig config, WebhookSender webhooks) {
        this(nodeId, store, clock, config, webhooks, Keyring.NONE);
    }

    /** @param keyring the master keys that seal this node's secrets ({@code AX_SECRET_KEY} or the data directory's key file) */
    public SchedulerNode(
            String nodeId,
            Store store,
            AxClock clock,
            SchedulerConfig config,
            WebhookSender webhooks,
            Keyring keyring) {
        this.secrets = new Secrets(store, keyring, nodeId);
        this.ctx = new NodeContext(nodeId, store, clock, config, new Signals(), secrets);
        ConcurrencyGate gate = new ConcurrencyGate(ctx, new Canaries(ctx));
        this.dependencies = gate.dependencies();
        FollowUps followUps = new FollowUps(ctx, gate, webhooks);
        Outcomes outcomes = new Outcomes(ctx, gate, followUps);
        this.firing = new Firing(ctx, gate);
        this.approvals = new Approvals(ctx, gate);
        this.dispatcher = new Dispatcher(ctx, outcomes, approvals, new Shards(ctx, gate, followUps));
        this.backfills = new Backfills(ctx, gate);
        this.housekeeping = new Housekeeping(ctx, dispatcher, gate, followUps, approvals, backfills, secrets);
        this.tasks = new Tasks(ctx, gate);
        this.runs = new Runs(ctx, gate);
        this.workflows = new WorkflowLoop(ctx, gate);
        this.canaries = gate.canaries();
        this.testRuns = new TestRuns(ctx);
        this.tokens = new Tokens(store);
        this.teams = new Teams(store);
        this.audit = new AuditLog(store);
        this.firingLoop = new LoopRunner("firing-" + nodeId, this::fireTick, this::untilNextSlot);
        this.housekeepingLoop = new LoopRunner(
                "housekeeping-" + nodeId,
                housekeeping::tick,
                () -> Thread.sleep(config.housekeeping().toMillis()));
        // Its own loop: a round over a large backlog must not hold up lease reaping and retries.
        this.retention = new Retention(ctx);
        this.retentionLoop = new LoopRunner("retention-" + nodeId, retention::tick, () -> {
            if (!retention.behind()) {
                Thread.sleep(config.retention().every().toMillis());
            }
        });
    }

    /** Starts the loops, once this node's secrets are sealed with its key and it knows what to mask. */
    public SchedulerNode start() {
        secrets.start();
        retention.makePartitionsAhead();
        firingLoop.start();
        housekeepingLoop.start();
        retentionLoop.start();
        workflows.start();
        return this;
    }

    private void fireTick() {
        tasksSeen = ctx.signals().tasksGeneration();
        firing.tick();
    }

    /**
     * Sleeps until the earliest next slot (by this node's view of the database clock), at most
     * {@code maxIdleWait}, and wakes at once when a task changes on this node. Precise waking is
     * what makes a 02:00:00.000 run start within milliseconds rather than at the next poll.
     */
    private void untilNextSlot() throws InterruptedException {
        Duration max = ctx.config().maxIdleWait();
        Duration wait = max;
        Optional<Instant> next = firing.nextDue();
        if (next.isPresent()) {
            Duration until = Duration.between(ctx.clock().now(), next.get());
            wait = until.isNegative() ? Duration.ZERO : (until.compareTo(max) < 0 ? until : max);
        }
        if (!wait.isZero()) {
            ctx.signals().awaitTasks(tasksSeen, wait);
        }
    }

    public NodeContext context() {
        return ctx;
    }

    public Firing firing() {
        return firing;
    }

    public Dispatcher dispatcher() {
        return dispatcher;
    }

    /**
     * Starts stopping: the node fires no more slots and hands out no more work (polls and registrations are refused
     * with {@link DrainingException}), while the runs already out report as usual. Other nodes fire and hand out
     * meanwhile; housekeeping goes on. Close it once its runs are done or the drain's time is up.
     */
    public void drain() {
        ctx.signals().drain();
        firingLoop.setPaused(true);
        workflows.setPaused(true);
    }

    public boolean draining() {
        return ctx.signals().isDraining();
    }

    /** History retention: expired runs, output, workflow runs and task events. */
    public Retention retention() {
        return retention;
    }

    public Housekeeping housekeeping() {
        return housekeeping;
    }

    public Tasks tasks() {
        return tasks;
    }

    public Backfills backfills() {
        return backfills;
    }

    /** Task dependencies: what a waiting run waits for. */
    public Dependencies dependencies() {
        return dependencies;
    }

    public Canaries canaries() {
        return canaries;
    }

    public TestRuns testRuns() {
        return testRuns;
    }

    /** Stored secrets: what admins set, what runs get at their hand-off, what this node masks. */
    public Secrets secrets() {
        return secrets;
    }

    /** Tokens for people and machines. */
    public Tokens tokens() {
        return tokens;
    }

    /** Teams that own tasks and workflows. */
    public Teams teams() {
        return teams;
    }

    /** The audit log of every action. */
    public AuditLog audit() {
        return audit;
    }

    public Approvals approvals() {
        return approvals;
    }

    /** Workflows (DAGs of tasks): the service, backfills and the loop's tick. */
    public WorkflowLoop workflows() {
        return workflows;
    }

    public Runs runs() {
        return runs;
    }

    /** Loop errors since start; healthy nodes keep this at zero. */
    public long loopErrors() {
        return firingLoop.errors() + housekeepingLoop.errors() + retentionLoop.errors() + workflows.errors();
    }

    public LoopRunner firingLoop() {
        return firingLoop;
    }

    @Override
    public void close() {
        ctx.signals().close();
        firingLoop.close();
        housekeepingLoop.close();
        retentionLoop.close();
        workflows.close();
    }
}
