package dev.ax.scheduler;

import dev.ax.domain.run.EventType;
import dev.ax.domain.run.FailureKind;
import dev.ax.domain.run.RunState;
import dev.ax.store.Move;
import dev.ax.store.RunRow;
import dev.ax.store.Store;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The small periodic chores of a node, each a tick the loop calls: runs whose lease expired
 * become failures (EXECUTOR_LOST, then the retry policy), retries whose time has come become
 * READY again, triggers' idempotency keys past their window are deleted, the database's planner
 * statistics are kept up with tables that grow fast, and secrets changed on another node are learned
 * (to be masked here too).
 */
public final class Housekeeping {
    static final int BATCH = 500;
    /**
     * How often the planner statistics are looked at. A look reads the database's activity counters of every table
     * (one to two milliseconds of PostgreSQL); the housekeeping tick is four times as frequent, and statistics a
     * few seconds late cost nothing.
     */
    static final long STATISTICS_EVERY_NANOS = TimeUnit.SECONDS.toNanos(2);
    /** Batches of expired trigger keys deleted per tick at most: a backlog goes over several ticks, never in one long stretch. */
    static final int KEY_BATCHES_PER_TICK = 20;

    private final NodeContext ctx;
    private final Dispatcher dispatcher;
    private final ConcurrencyGate gate;
    private final FollowUps followUps;
    private final Approvals approvals;
    private final Backfills backfills;
    private final Secrets secrets;
    private long statisticsDue = System.nanoTime(); // only the housekeeping loop's thread ticks
    private long sessionsDue = System.nanoTime();
    static final long SESSIONS_EVERY_NANOS = TimeUnit.MINUTES.toNanos(1);

    Housekeeping(
            NodeContext ctx,
            Dispatcher dispatcher,
            ConcurrencyGate gate,
            FollowUps followUps,
            Approvals approvals,
            Backfills backfills,
            Secrets secrets) {
        this.ctx = ctx;
        this.dispatcher = dispatcher;
        this.gate = gate;
        this.followUps = followUps;
        this.approvals = approvals;
        this.backfills = backfills;
        this.secrets = secrets;
    }

    /** Creates the next runs of running backfills; returns how many. */
    public int backfills() {
        return backfills.tick();
    }

    /** Cancels approval requests nobody decided in time; returns how many. */
    public int expireApprovals() {
        return approvals.expire();
    }

    public void tick() {
        reapLeases();
        promoteRetries();
        unblock();
        followUps();
        expireApprovals();
        backfills();
        dependencyDeadlines();
        expireTriggerKeys();
        secrets.refresh();
        long now = System.nanoTime();
        if (now - statisticsDue >= 0) {
            statisticsDue = now + STATISTICS_EVERY_NANOS;
            statistics();
        }
        if (now - sessionsDue >= 0) {
            sessionsDue = now + SESSIONS_EVERY_NANOS;
            expireSessions();
        }
    }

    /** Console sessions past their end, and single sign-ons begun and never finished (older than an hour); how many went. */
    public int expireSessions() {
        Store store = ctx.store();
        return store.tx(tx -> store.sessions().expire(tx, SIGN_IN_KEPT.toMillis()));
    }

    /** A sign-in sent to the identity provider is good for ten minutes; its row is kept a little longer, then deleted. */
    static final Duration SIGN_IN_KEPT = Duration.ofHours(1);

    /** Analyzes the tables that outgrew their planner statistics (PostgreSQL); returns their names. */
    public List<String> statistics() {
        return ctx.store().statistics().refresh();
    }

    /** Ends the runs that waited for their dependencies past their deadline; returns how many. Readiness itself is never polled. */
    public int dependencyDeadlines() {
        return gate.dependencies().expire();
    }

    /** Carries out due failure follow-ups (compensation runs, pauses, webhooks); returns how many finished. */
    public int followUps() {
        return followUps.tick();
    }

    /**
     * A safety net for the concurrency gate: every task with waiting runs gets its free slots
     * filled. Slots are normally filled in the transaction that frees them; this catches a run
     * that ended by a path that did not (and makes a lost wake-up impossible to notice).
     */
    public int unblock() {
        Store store = ctx.store();
        int started = 0;
        for (long taskId : store.tx(tx -> store.runs().tasksWithWaitingRuns(tx, BATCH))) {
            started += store.tx(tx -> gate.release(tx, taskId));
        }
        return started;
    }

    /**
     * Deletes the triggers' idempotency keys older than the window; returns how many. Each batch is a
     * transaction of its own that skips keys a trigger holds, so a trigger waits for at most one batch.
     */
    public int expireTriggerKeys() {
        Store store = ctx.store();
        int total = 0;
        for (int i = 0; i < KEY_BATCHES_PER_TICK; i++) {
            int n = store.tx(
                    tx -> store.triggerKeys().deleteExpired(tx, ctx.config().idempotencyWindow(), BATCH));
            total += n;
            if (n < BATCH) {
                break;
            }
        }
        return total;
    }

    public int reapLeases() {
        int total = 0;
        int n;
        do {
            n = dispatcher.reapExpiredLeases(BATCH);
            total += n;
        } while (n == BATCH);
        return total;
    }

    /**
     * RETRYING → READY for every retry that is due; returns how many. A run its executor lost keeps its place in
     * line (its slot): it was due then, and put behind a backlog of later slots it waited for all of them.
     */
    public int promoteRetries() {
        Store store = ctx.store();
        int promoted = store.tx(tx -> {
            int n = 0;
            for (RunRow run : store.runs().lockDueRetries(tx, BATCH)) {
                boolean lost = run.failureKind() == FailureKind.EXECUTOR_LOST;
                if (store.runs()
                        .move(
                                tx,
                                Move.of(run.id(), RunState.RETRYING, RunState.READY)
                                        .set(Move.Column.READY_AT, lost ? run.scheduledAt() : Move.NOW)
                                        .event(
                                                EventType.RETRY_READY,
                                                ctx.schedulerActor(),
                                                ctx.nodeId(),
                                                "attempt " + (run.attempt() + 1) + " of " + run.maxAttempts()
                                                        + " is ready"))) {
                    n++;
                }
            }
            return n;
        });
        if (promoted > 0) {
            ctx.signals().workAvailable();
        }
        return promoted;
    }
}
