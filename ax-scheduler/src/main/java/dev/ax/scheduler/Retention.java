package dev.ax.scheduler;

import dev.ax.domain.policy.Expiry;
import dev.ax.domain.policy.Expiry.Keep;
import dev.ax.domain.policy.Expiry.Rules;
import dev.ax.domain.task.Dependency;
import dev.ax.domain.task.RunRetention;
import dev.ax.store.DependencyStore;
import dev.ax.store.RetentionStore;
import dev.ax.store.RetentionStore.Candidate;
import dev.ax.store.Store;
import dev.ax.store.TaskRow;
import dev.ax.store.Tx;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * History retention: deletes runs (with their events, output, shards and follow-ups) that ended longer ago than their
 * task's retention, the output of runs older than the log retention, finished workflow runs and a task's own events of
 * that age. Any node may run it, several at once: each batch deletes only ended runs it could lock, skipping those
 * another node holds. What may go is {@link Expiry}'s decision; this class gathers the facts it decides on.
 *
 * <p>The whole table is walked by id from its oldest run, a bounded stretch per round, up to the runs created within
 * the server's period (none of those can have expired under it); a task whose own period is shorter is walked on its own
 * index. The walk resumes where the last round stopped, so a backlog of millions goes over several rounds, each a
 * chain of short transactions.
 */
public final class Retention {
    private static final Logger LOG = LoggerFactory.getLogger(Retention.class);
    /** Runs read per statement. */
    static final int PAGE = 1_000;
    /**
     * How far back from a waiting run's slot a {@code sameDate} upstream run may have been scheduled: a business date
     * is a day in each task's own zone, and zones are up to 26 hours apart.
     */
    static final Duration DATE_SPAN = Duration.ofHours(50);
    /** Far enough ahead that "the slot before it" is a task's newest slot. */
    static final Duration FAR_AHEAD = Duration.ofDays(3650);

    private final NodeContext ctx;
    // Only the retention loop's thread ticks: where the walk over the run table (and over each task with a shorter
    // period) stands, and the last event id the walk over events passed (every event older than the period up to it
    // was judged).
    private final Walk table;
    private final Map<Long, Walk> tasks = new HashMap<>();
    private long eventCursor;
    private final OutputRetention output;

    private volatile Totals totals = new Totals(0, 0, 0, 0);
    private volatile boolean behind;

    Retention(NodeContext ctx) {
        this.ctx = ctx;
        this.table = new Walk();
        this.output = new OutputRetention(ctx);
    }

    /** What a round deleted. */
    public record Result(int runs, long logChunks, int workflowRuns, int taskEvents) {}

    /** What this node deleted since it started. */
    public record Totals(long runs, long logChunks, long workflowRuns, long taskEvents) {}

    public Totals totals() {
        return totals;
    }

    /** The last round stopped at its budget with more to look at: the next one need not wait. */
    public boolean behind() {
        return behind;
    }

    /** Makes the coming days' output partitions (PostgreSQL), as a node starts. */
    void makePartitionsAhead() {
        output.makePartitionsAhead();
    }

    /** One round: expired runs, then output, workflow runs and a task's own events past their period. */
    public Result tick() {
        long started = System.nanoTime();
        HistoryRetention cfg = ctx.config().retention();
        Store store = ctx.store();
        Round round = store.tx(tx -> round(tx, cfg));
        int runs = walkTable(round) + walkTasks(round);
        OutputRetention.Swept swept = output.expire(round.now, round.now.minus(cfg.logs()), round.budget);
        round.budget -= swept.looked();
        long chunks = swept.chunks();
        Instant before = round.now.minus(cfg.runs());
        int workflowRuns = (int)
                deleteInBatches(cfg, tx -> store.retention().deleteWorkflowRunsFinishedBefore(tx, before, cfg.batch()));
        int taskEvents = walkEvents(round, before);
        behind = round.budget <= 0;
        Result r = new Result(runs, chunks, workflowRuns, taskEvents);
        Totals t = totals;
        totals = new Totals(
                t.runs() + runs, t.logChunks() + chunks, t.workflowRuns() + workflowRuns, t.taskEvents() + taskEvents);
        if (runs + chunks + workflowRuns + taskEvents > 0) {
            LOG.info(
                    "retention: deleted {} runs with their events and output, the output of others ({} chunks),"
                            + " {} workflow runs and {} task events in {} ms{}",
                    runs,
                    chunks,
                    workflowRuns,
                    taskEvents,
                    (System.nanoTime() - started) / 1_000_000,
                    behind ? "; more to do, going on" : "");
        }
        return r;
    }

    /** The facts a round decides on, read once at its start. */
    private final class Round {
        final Instant now;
        final Instant keysFrom;
        final Rules defaults;
        final Map<Long, Rules> rules = new HashMap<>();
        /** Per upstream task, the end from which its runs may decide a waiting run's dependency. */
        final Map<Long, Instant> neededFrom = new HashMap<>();
        /** Runs a waiting run's (or a task's next) previous slot is decided on. */
        final Set<Long> neededRuns = new HashSet<>();

        final Map<Long, Optional<Long>> nthNewest = new HashMap<>();
        final long startedNanos = System.nanoTime();
        int budget;
        /** Runs deleted so far, for the pace. */
        long deleted;

        Round(Instant now, HistoryRetention cfg) {
            this.now = now;
            this.keysFrom = now.minus(ctx.config().idempotencyWindow());
            this.defaults = Rules.of(RunRetention.NONE, cfg.runs());
            this.budget = cfg.perTick();
        }

        Rules rulesOf(long taskId) {
            return rules.getOrDefault(taskId, defaults);
        }

        /** Whether the run may go; reads a task's newest runs only for a run that is old enough to. */
        boolean expired(Candidate c) {
            Rules r = rulesOf(c.taskId());
            if (Expiry.keep(r, c.state(), c.endedAt(), Set.of(), now).isPresent()) {
                return false;
            }
            Set<Keep> holds = EnumSet.noneOf(Keep.class);
            if (newest(c, r)) {
                holds.add(Keep.NEWEST);
            }
            if (c.keyHolder()) {
                holds.add(Keep.IDEMPOTENCY_KEY);
            }
            if (c.triggerKey()) {
                holds.add(Keep.TRIGGER_KEY);
            }
            if (c.followUp()) {
                holds.add(Keep.FOLLOW_UP);
            }
            if (c.workflow()) {
                holds.add(Keep.WORKFLOW);
            }
            Instant from = neededFrom.get(c.taskId());
            if (neededRuns.contains(c.id()) || (from != null && !c.endedAt().isBefore(from))) {
                holds.add(Keep.DEPENDENCY);
            }
            return Expiry.keep(r, c.state(), c.endedAt(), holds, now).isEmpty();
        }

        private boolean newest(Candidate c, Rules r) {
            if (!c.superseded()) {
                return true;
            }
            if (r.keepLast() == 1) {
                return false;
            }
            Optional<Long> from = nthNewest.computeIfAbsent(
                    c.taskId(),
                    id -> ctx.store().tx(tx -> ctx.store().retention().nthNewest(tx, id, r.keepLast())));
            return from.isEmpty() || c.id() >= from.get();
        }
    }

    private Round round(Tx tx, HistoryRetention cfg) {
        Store store = ctx.store();
        Round round = new Round(tx.now(), cfg);
        store.retention()
                .overrides(tx)
                .forEach((taskId, retention) -> round.rules.put(taskId, Rules.of(retention, cfg.runs())));
        DependencyStore deps = store.dependencies();
        for (var waiting : store.retention().oldestWaitingForDependencies(tx).entrySet()) {
            Optional<TaskRow> task = store.tasks().findById(tx, waiting.getKey());
            if (task.isEmpty()) {
                continue;
            }
            Instant slot = waiting.getValue();
            for (Dependency d : task.get().definition().dependencies().dependsOn()) {
                Optional<TaskRow> upstream = store.tasks().find(tx, d.task());
                if (upstream.isEmpty()) {
                    continue;
                }
                long up = upstream.get().id();
                Instant from = switch (d.scope()) {
                    case SAME_DATE -> slot.minus(DATE_SPAN);
                    case LATEST -> slot.minus(d.window());
                    // Slots after the oldest waiting one end after it; the slot before it is held by id.
                    case PREVIOUS_SLOT -> slot;
                };
                round.neededFrom.merge(up, from, (a, b) -> a.isBefore(b) ? a : b);
                if (d.scope() == Dependency.Scope.PREVIOUS_SLOT) {
                    deps.previousSlot(tx, up, slot).forEach(f -> round.neededRuns.add(f.instanceId()));
                }
            }
        }
        // The next slot of a task that waits for its previous one looks at its newest slot, however old.
        for (long taskId : store.retention().tasksWaitingForTheirPreviousSlot(tx)) {
            deps.previousSlot(tx, taskId, round.now.plus(FAR_AHEAD)).forEach(f -> round.neededRuns.add(f.instanceId()));
        }
        return round;
    }

    /**
     * Walks the run table by id from where the last round stopped, up to the runs created within the server's shortest
     * period; then starts again from the oldest run.
     */
    private int walkTable(Round round) {
        return walk(round, null, table, round.now.minus(round.defaults.shortest()));
    }

    /** Walks each task whose own period is shorter than the server's on the index by task. */
    private int walkTasks(Round round) {
        int deleted = 0;
        for (var e : round.rules.entrySet()) {
            Rules rules = e.getValue();
            if (rules.shortest().compareTo(round.defaults.shortest()) >= 0) {
                continue; // the table's walk reaches its runs
            }
            long taskId = e.getKey();
            Walk walk = tasks.computeIfAbsent(taskId, id -> new Walk());
            deleted += walk(round, taskId, walk, round.now.minus(rules.shortest()));
        }
        tasks.keySet().retainAll(round.rules.keySet());
        return deleted;
    }

    /**
     * Where a walk over runs stands. It goes on from where the last round stopped; once it reached the runs too young to
     * have expired, it stays there (judging each run as it comes of age) and starts over from the oldest run only once
     * {@link HistoryRetention#rewalk} has passed since it last did: the runs it passed and kept (a task's longer period,
     * the newest runs, a waiting dependent...) are judged again then, not on every round.
     */
    private final class Walk {
        long cursor;
        long startedNanos = System.nanoTime();

        void reachedTheYoung(long lastJudged) {
            if (lastJudged > 0) {
                cursor = lastJudged;
            }
            long now = System.nanoTime();
            if (now - startedNanos >= ctx.config().retention().rewalk().toNanos()) {
                cursor = 0;
                startedNanos = now;
            }
        }
    }

    /** Walks runs (of one task, unless {@code taskId} is null) from where {@code walk} stands up to {@code bound}. */
    private int walk(Round round, Long taskId, Walk walk, Instant bound) {
        int deleted = 0;
        while (round.budget > 0) {
            long from = walk.cursor;
            if (!due(taskId, from, bound)) {
                walk.reachedTheYoung(0);
                break;
            }
            List<Candidate> page = ctx.store()
                    .tx(tx -> taskId == null
                            ? ctx.store().retention().after(tx, from, round.keysFrom, PAGE)
                            : ctx.store().retention().ofTask(tx, taskId, from, round.keysFrom, PAGE));
            PageResult p = judge(round, page, bound);
            deleted += delete(round, p.expired);
            if (p.done) {
                walk.reachedTheYoung(p.lastId);
                break;
            }
            walk.cursor = p.lastId;
        }
        return deleted;
    }

    /**
     * Deletes a task's own events (no run, no workflow run) older than {@code before}. Events are walked by id once,
     * from where the last round stopped up to the first one of the period; those of runs go with their runs.
     */
    private int walkEvents(Round round, Instant before) {
        int deleted = 0;
        while (round.budget > 0) {
            long from = eventCursor;
            List<RetentionStore.EventAge> page =
                    ctx.store().tx(tx -> ctx.store().retention().eventsAfter(tx, from, PAGE));
            List<Long> own = new ArrayList<>();
            boolean done = page.size() < PAGE;
            for (RetentionStore.EventAge e : page) {
                if (!e.at().isBefore(before)) {
                    done = true;
                    break;
                }
                round.budget--;
                eventCursor = e.id();
                if (e.taskOwn()) {
                    own.add(e.id());
                }
            }
            if (!own.isEmpty()) {
                deleted += ctx.store().tx(tx -> ctx.store().retention().deleteTaskEvents(tx, own));
            }
            if (done) {
                break;
            }
        }
        return deleted;
    }

    /** Whether the next run of the walk was created before {@code bound}, so that it may have expired. */
    private boolean due(Long taskId, long after, Instant bound) {
        return ctx.store()
                .tx(tx -> ctx.store().retention().firstCreatedAfter(tx, taskId, after))
                .filter(created -> created.isBefore(bound))
                .isPresent();
    }

    private record PageResult(List<Long> expired, long lastId, boolean done) {}

    /** Judges a page up to the first run created at or after {@code bound} (done then, or when the page ran short). */
    private static PageResult judge(Round round, List<Candidate> page, Instant bound) {
        List<Long> expired = new ArrayList<>();
        long last = 0;
        for (Candidate c : page) {
            if (!c.createdAt().isBefore(bound)) {
                return new PageResult(expired, last, true);
            }
            round.budget--;
            last = c.id();
            if (round.expired(c)) {
                expired.add(c.id());
            }
        }
        return new PageResult(expired, last, page.size() < PAGE);
    }

    private int delete(Round round, List<Long> ids) {
        HistoryRetention cfg = ctx.config().retention();
        int deleted = 0;
        for (int i = 0; i < ids.size(); i += cfg.batch()) {
            List<Long> part = ids.subList(i, Math.min(ids.size(), i + cfg.batch()));
            deleted += ctx.store().tx(tx -> ctx.store().retention().deleteRuns(tx, part));
            round.deleted += part.size();
            pace(cfg, round);
        }
        return deleted;
    }

    /** Waits as {@link HistoryRetention#pause} says; an interrupt (the node stopping) ends the round. */
    private void pace(HistoryRetention cfg, Round round) {
        Duration pause = cfg.pause(round.deleted, Duration.ofNanos(System.nanoTime() - round.startedNanos));
        if (pause.isZero()) {
            return;
        }
        try {
            Thread.sleep(pause);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            round.budget = 0;
        }
    }

    @FunctionalInterface
    private interface Batch {
        int delete(Tx tx);
    }

    /** Batches of one kind of row until one comes back short, within the round's budget. */
    private long deleteInBatches(HistoryRetention cfg, Batch batch) {
        long total = 0;
        for (int i = 0; i < cfg.perTick() / cfg.batch(); i++) {
            int n = ctx.store().tx(batch::delete);
            total += n;
            if (n < cfg.batch()) {
                break;
            }
        }
        return total;
    }
}
