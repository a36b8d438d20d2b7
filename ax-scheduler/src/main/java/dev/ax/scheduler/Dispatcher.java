package dev.ax.scheduler;

import dev.ax.domain.protocol.ApprovalAsk;
import dev.ax.domain.protocol.Completion;
import dev.ax.domain.protocol.Heartbeat;
import dev.ax.domain.protocol.HeartbeatAnswer;
import dev.ax.domain.protocol.LogChunk;
import dev.ax.domain.protocol.Poll;
import dev.ax.domain.protocol.Register;
import dev.ax.domain.protocol.RegisterAnswer;
import dev.ax.domain.protocol.ReportAnswer;
import dev.ax.domain.protocol.RunRef;
import dev.ax.domain.protocol.RunStateQuery;
import dev.ax.domain.protocol.Started;
import dev.ax.domain.protocol.WorkItem;
import dev.ax.domain.run.EventType;
import dev.ax.domain.run.FailureKind;
import dev.ax.domain.run.InstanceState;
import dev.ax.domain.secret.SecretMask;
import dev.ax.domain.task.TaskDefinition;
import dev.ax.store.InstanceRow;
import dev.ax.store.InstanceStore;
import dev.ax.store.LogStore;
import dev.ax.store.Store;
import dev.ax.store.Tx;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.stream.Collectors;

/**
 * The server side of the executor protocol ({@code dev.ax.domain.protocol}). The same object
 * serves remote executors through the API and the in-process executor by direct calls.
 * Every report about a run is fenced: it must name the attempt that holds the lease.
 */
public final class Dispatcher {
    public static final int MAX_POLL = 100;
    public static final long MAX_WAIT_MILLIS = 60_000;

    private final NodeContext ctx;
    private final Outcomes outcomes;

    private final Approvals approvals;
    private final Shards shards;
    private final GroupedReports grouped;

    Dispatcher(NodeContext ctx, Outcomes outcomes, Approvals approvals, Shards shards) {
        this.ctx = ctx;
        this.outcomes = outcomes;
        this.approvals = approvals;
        this.shards = shards;
        this.grouped = new GroupedReports(ctx, outcomes);
    }

    static String actor(String executorId) {
        return "executor:" + executorId;
    }

    /**
     * An executor starts (or restarts). Runs the server thinks it holds but the executor no
     * longer has are failed as EXECUTOR_LOST at once (the retry policy decides); runs it reports
     * that the server no longer assigns to it are to be abandoned.
     */
    public RegisterAnswer register(Register r) {
        Store store = ctx.store();
        List<InstanceRow> lostRuns = new ArrayList<>();
        List<RunRef> abandon = store.tx(tx -> {
            store.executors().register(tx, r.executorId(), r.session(), r.groups(), r.host(), r.pid(), r.version());
            store.executors().setLabels(tx, r.executorId(), r.labels());
            Set<RunRef> reported = new HashSet<>(r.held());
            for (InstanceRow run : store.instances().heldBy(tx, r.executorId())) {
                if (!reported.contains(new RunRef(run.id(), run.attempt()))) {
                    lostRuns.add(run);
                }
            }
            List<RunRef> lost = new ArrayList<>(store.instances()
                    .renewLeases(
                            tx,
                            r.executorId(),
                            Shards.plain(r.held()),
                            ctx.config().leaseMillis()));
            lost.addAll(shards.renewLeases(tx, r.executorId(), Shards.sharded(r.held())));
            return lost;
        });
        // One transaction per lost run: failing one locks its task, and no transaction takes a
        // second task lock (the one lock order is a task, then its instances).
        for (InstanceRow run : lostRuns) {
            store.tx(tx -> outcomes.fail(
                    tx,
                    run,
                    r.executorId(),
                    FailureKind.EXECUTOR_LOST,
                    null,
                    "executor " + r.executorId() + " restarted without this run",
                    "server"));
        }
        seen.remove(r.executorId()); // its labels may have changed
        shards.registered(r.executorId(), r.held());
        ctx.signals().workAvailable();
        return new RegisterAnswer(
                ctx.config().leaseMillis(),
                ctx.config().heartbeatMillis(),
                abandon,
                lostRuns.stream()
                        .map(run -> new RunRef(run.id(), run.attempt()))
                        .toList());
    }

    /**
     * Claims work for the executor, waiting up to {@code waitMillis} for some to become due.
     *
     * <p>Claims are made only at the start of a request. If work appears while the request waits,
     * the answer is empty and the executor polls again at once: a client that died while waiting
     * (SIGKILL, a cut network) is never handed a run it cannot receive, which would otherwise
     * burn an attempt on a lease nobody holds.
     *
     * <p>Runs fired ahead of their slot are claimed up to {@code claimAhead} before it, by a poll that
     * starts then and whose wait lasts past the slot; the answer is held back until the slot by the
     * database's clock, so their bodies start on it rather than after a claim's transaction. A wait for
     * such runs ends {@code claimAhead} before their slot, so that the executor's next poll claims them.
     */
    public List<WorkItem> poll(Poll p) throws InterruptedException {
        int max = Math.clamp(p.max(), 0, MAX_POLL);
        long waitNanos = Duration.ofMillis(Math.clamp(p.waitMillis(), 0, MAX_WAIT_MILLIS))
                .toNanos();
        long start = System.nanoTime();
        List<String> labels = seenAndLabels(p.executorId());
        List<WorkItem> items = claim(p.executorId(), p.groups(), labels, max);
        if (!items.isEmpty() || max == 0) {
            return items;
        }
        // A poll holds runs claimed ahead within its own wait: a wait shorter than claimAhead claims less ahead.
        long ahead = Math.min(ctx.config().claimAhead().toNanos(), waitNanos);
        Due due = due(p, labels);
        if (due != null
                && !due.now()
                && due.nanosLeft() <= ahead
                && due.nanosLeft() <= waitNanos - (System.nanoTime() - start)) {
            Optional<List<WorkItem>> held = claimAhead(p.executorId(), p.groups(), labels, max, due);
            if (held.isPresent()) {
                return held.get();
            }
            // Another executor took them, or holds them locked while it claims: this poll waits for the slot itself.
            ahead = 0;
            due = due(p, labels);
        }
        long recheck = ctx.config().pollRecheck().toNanos();
        while (true) {
            long generation = ctx.signals().workGeneration();
            long left = waitNanos - (System.nanoTime() - start);
            if (left <= 0 || ctx.signals().isClosed()) {
                return List.of();
            }
            long wait = Math.min(left, recheck);
            // A run fired ahead of its slot is READY but not due yet: the wait ends when the next poll may claim it.
            long untilClaimable = due == null || due.now() ? -1 : Math.max(0, due.nanosLeft() - ahead);
            boolean untilItIsClaimable = untilClaimable >= 0 && untilClaimable <= wait;
            if (untilItIsClaimable) {
                wait = untilClaimable;
            }
            // Woken at once by work created on this node; other nodes' work is found by the recheck.
            ctx.signals().awaitWork(generation, Duration.ofNanos(wait));
            if (untilItIsClaimable && ctx.signals().workGeneration() == generation) {
                // Slept until the run fired ahead may be claimed (measured from the database's clock before the sleep,
                // so
                // not before): no need to ask the database again, the executor polls again at once and claims it.
                return List.of();
            }
            due = due(p, labels);
            if (due != null && due.now()) {
                return List.of();
            }
        }
    }

    /**
     * When the next work for a poll is due: now (a READY run or shard due), at a slot ahead (a run fired ahead), or
     * null when none waits. {@code deadline} is that slot on this JVM's {@link System#nanoTime}, measured from the
     * database's clock once its answer was back, so never before the slot by the database.
     */
    private record Due(Instant slot, long deadline) {
        boolean now() {
            return slot == null;
        }

        long nanosLeft() {
            return deadline - System.nanoTime();
        }
    }

    private Due due(Poll p, List<String> labels) {
        Optional<InstanceStore.NextReady> next = ctx.store()
                .tx(tx -> shards.readyFor(tx, p.executorId(), p.groups(), labels)
                        ? Optional.of(new InstanceStore.NextReady(null, Duration.ZERO))
                        : ctx.store().instances().nextReady(tx, p.groups(), labels));
        long measured = System.nanoTime();
        return next.map(n -> n.until().isZero()
                        ? new Due(null, measured)
                        : new Due(n.readyAt(), measured + n.until().toNanos()))
                .orElse(null);
    }

    /**
     * Claims the runs of {@code due}'s slot (and any due before it), and hands them out at the slot: empty when
     * another executor took them. A claimed run that fanned out into shards hands out none of them before the slot
     * either (their {@code ready_at} is the slot); polls on this node are told of them at the slot.
     *
     * <p>The wait for the slot is not cut short by an interrupt (an executor closing): the runs are claimed, and are
     * handed out at their slot, never before, with the interrupt kept for the caller. A caller gone by then leaves
     * them to their leases, as it would a claim answered while it went away.
     */
    private Optional<List<WorkItem>> claimAhead(
            String executorId, List<String> groups, List<String> labels, int max, Due due) {
        Claimed claimed = claimTogether(List.of(new ClaimRequest(executorId, groups, labels, max, due.slot())))
                .getFirst();
        failUnrenderable(claimed, executorId);
        if (claimed.items().isEmpty() && !claimed.fannedOut()) {
            return Optional.empty();
        }
        boolean interrupted = false;
        long left;
        while ((left = due.nanosLeft()) > 0) {
            try {
                TimeUnit.NANOSECONDS.sleep(left);
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        if (claimed.fannedOut()) {
            ctx.signals().workAvailable();
        }
        return Optional.of(claimed.items());
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
    private List<String> seenAndLabels(String executorId) {
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
        inBacklog.retainAll(seen.keySet());
    }

    /** Executors this node remembers (polled within {@code executorAlive}, roughly); for tests and diagnostics. */
    int remembered() {
        return seen.size();
    }

    /** Replaces the time source of what this node remembers of executors (tests: time moved by hand). */
    void useTicker(LongSupplier nanos) {
        this.ticker = nanos;
    }

    /** One executor's claim, as its poll asks for it: runs due now, or ({@code dueBy} set) also runs fired ahead due by then. */
    private record ClaimRequest(String executorId, List<String> groups, List<String> labels, int max, Instant dueBy) {
        ClaimRequest(String executorId, List<String> groups, List<String> labels, int max) {
            this(executorId, groups, labels, max, null);
        }
    }

    /** What one claim got: the runs to hand out, and runs to fail after the commit (their templates do not render). */
    private record Claimed(
            List<WorkItem> items, List<InstanceRow> unrenderable, List<String> reasons, boolean fannedOut) {}

    /**
     * Polls on this node that claim in a backlog claim together: the claims queued while others are
     * written go into one transaction, one after the other, so a node has at most
     * {@link #CLAIM_WRITERS} such transactions open. Twenty executors each claiming in a transaction of
     * its own stepped over one another's locked rows at the head of the READY index (each claim tries,
     * and skips, every row another holds) and committed twenty times: on PostgreSQL alone, four
     * claimers taking five hundred runs a transaction spent 0.15 ms of the machine's CPU per run where
     * sixteen claimers taking a hundred spent 0.19–0.22 ms (BENCHMARKS.md, twelfth session).
     *
     * <p>A claim goes alone, at once, unless the executor's previous claim came back full: runs that
     * become due at their slot are claimed by polls woken at that instant, and a claim that queued behind
     * the others' transactions would start their runs tens of milliseconds late. A group's transaction
     * that fails fails each claim in it: their polls fail, and their executors poll again.
     */
    private final GroupCommit<ClaimRequest, Claimed> claims =
            new GroupCommit<>(this::claimTogether, CLAIM_WRITERS, CLAIMS_PER_TRANSACTION);

    static final int CLAIM_WRITERS = 4;
    static final int CLAIMS_PER_TRANSACTION = 10;
    /** Executors whose last claim on this node came back full (they are working through a backlog). */
    private final Set<String> inBacklog = ConcurrentHashMap.newKeySet();

    List<WorkItem> claim(String executorId, List<String> groups, List<String> labels, int max) {
        ClaimRequest request = new ClaimRequest(executorId, groups, labels, max);
        Claimed claimed = inBacklog.contains(executorId)
                ? claims.submit(request)
                : claimTogether(List.of(request)).getFirst();
        if (claimed.items().size() >= max) {
            inBacklog.add(executorId);
        } else {
            inBacklog.remove(executorId);
        }
        failUnrenderable(claimed, executorId);
        if (claimed.fannedOut()) {
            ctx.signals().workAvailable(); // the other executors of the group take the other shards
        }
        return claimed.items();
    }

    /**
     * Fails the claimed runs whose templates do not render (they would fail the same way on every attempt), outside the
     * claim transaction: failing locks the task row, and no transaction may take a task lock while it holds instance
     * locks (the one lock order is task first).
     */
    private void failUnrenderable(Claimed claimed, String executorId) {
        for (int i = 0; i < claimed.unrenderable().size(); i++) {
            InstanceRow run = claimed.unrenderable().get(i);
            String reason = claimed.reasons().get(i);
            ctx.store().tx(tx -> outcomes.fail(tx, run, executorId, FailureKind.START_ERROR, null, reason, "server"));
        }
    }

    private List<Claimed> claimTogether(List<ClaimRequest> requests) {
        Store store = ctx.store();
        try (AutoCloseable ignored = store.db().dialect().claimLock()) {
            return store.tx(tx -> {
                // The claim reads the READY index and then its runs by id, and a group's capacity counts the RUNNING
                // index, whose
                // entries of finished runs stay until vacuum: by plain index scans, whatever the statistics of a new or
                // busy table
                // say (on a new database the planner read the whole run table for each claim in the first seconds).
                tx.preferPlainIndexScans();
                // A group's capacity is decided under a lock of its own. The transaction takes every lock its claims
                // will
                // need first, in one order (claimFairly visits groups in a rotating order, and claims share a
                // transaction):
                // two claim transactions never hold one group's lock while waiting for another's.
                requests.stream()
                        .flatMap(r -> r.groups().stream())
                        .filter(ctx.config().groupCapacity()::containsKey)
                        .collect(Collectors.toCollection(TreeSet::new))
                        .forEach(g -> tx.lockKey(groupLock(g)));
                List<List<InstanceRow>> runs = claimRuns(tx, requests);
                List<Claimed> out = new ArrayList<>(requests.size());
                for (int i = 0; i < requests.size(); i++) {
                    out.add(handOut(tx, requests.get(i), runs.get(i)));
                }
                return out;
            });
        } catch (Exception e) {
            throw e instanceof RuntimeException re ? re : new IllegalStateException(e);
        }
    }

    /**
     * Each request's runs. Requests of one group without a capacity and of the same labels are
     * claimed together ({@link InstanceStore#claimEach}: one read of the READY index
     * for all of them, where each claim of a group read it anew and stepped over the runs the
     * claims before it had locked); the others one by one, fairly across their groups.
     */
    private List<List<InstanceRow>> claimRuns(Tx tx, List<ClaimRequest> requests) {
        List<List<InstanceRow>> runs = new ArrayList<>(Collections.nCopies(requests.size(), List.<InstanceRow>of()));
        Map<List<Object>, List<Integer>> together = new LinkedHashMap<>();
        for (int i = 0; i < requests.size(); i++) {
            ClaimRequest r = requests.get(i);
            if (r.groups().size() == 1
                    && !ctx.config().groupCapacity().containsKey(r.groups().getFirst())) {
                together.computeIfAbsent(
                                List.of(r.groups(), r.labels(), Optional.ofNullable(r.dueBy())), k -> new ArrayList<>())
                        .add(i);
            } else {
                runs.set(i, claimFairly(tx, r.executorId(), r.groups(), r.labels(), r.max(), r.dueBy()));
            }
        }
        for (List<Integer> alike : together.values()) {
            ClaimRequest first = requests.get(alike.getFirst());
            List<InstanceStore.Claimant> claimants = alike.stream()
                    .map(i -> new InstanceStore.Claimant(
                            requests.get(i).executorId(), requests.get(i).max()))
                    .toList();
            List<List<InstanceRow>> got = ctx.store()
                    .instances()
                    .claimEach(
                            tx,
                            claimants,
                            first.groups(),
                            first.labels(),
                            ctx.config().leaseMillis(),
                            ctx.nodeId(),
                            first.dueBy());
            for (int k = 0; k < alike.size(); k++) {
                runs.set(alike.get(k), got.get(k));
            }
        }
        return runs;
    }

    /** Renders a request's claimed runs into work items (fanning sharded runs out), then hands it shards up to its max. */
    private Claimed handOut(Tx tx, ClaimRequest r, List<InstanceRow> claimed) {
        List<WorkItem> out = new ArrayList<>(claimed.size());
        List<InstanceRow> unrenderable = new ArrayList<>();
        List<String> reasons = new ArrayList<>();
        boolean fannedOut = false;
        for (InstanceRow run : claimed) {
            try {
                TaskDefinition def = ctx.store().tasks().definition(tx, run.taskId(), run.taskVersion());
                WorkItem item = WorkRenderer.render(tx, ctx, run, def);
                // A sharded run fans out here; its shards are handed out below, like shards of earlier runs.
                if (shards.fanOut(tx, run, def, r.executorId())) {
                    fannedOut = true;
                } else {
                    out.add(item);
                }
            } catch (IllegalArgumentException e) {
                unrenderable.add(run);
                reasons.add(e.getMessage());
            }
        }
        out.addAll(shards.claim(tx, r.executorId(), r.groups(), r.labels(), r.max() - out.size()));
        return new Claimed(out, unrenderable, reasons, fannedOut);
    }

    private static String groupLock(String group) {
        return "ax-group:" + group;
    }

    private final AtomicInteger rotation = new AtomicInteger();

    /**
     * Claims across an executor's groups so that no group starves the others: each group first
     * gets an equal share of {@code max} (starting from a rotating group), then what is left
     * goes to any group with work; a group with a configured capacity never gets more RUNNING
     * runs than that, across all executors (serialised per group by a database lock).
     */
    private List<InstanceRow> claimFairly(
            Tx tx, String executorId, List<String> groups, List<String> labels, int max, Instant dueBy) {
        long lease = ctx.config().leaseMillis();
        List<String> order = new ArrayList<>(groups);
        Collections.rotate(order, Math.floorMod(rotation.getAndIncrement(), order.size()));
        Map<String, Integer> room = new HashMap<>();
        for (String g : order) {
            Integer capacity = ctx.config().groupCapacity().get(g);
            if (capacity != null) {
                // Counted under the group's lock, which claimTogether took.
                room.put(g, Math.max(0, capacity - ctx.store().instances().countRunning(tx, g)));
            } else {
                room.put(g, Integer.MAX_VALUE);
            }
        }
        List<InstanceRow> claimed = new ArrayList<>();
        int share = (max + order.size() - 1) / order.size();
        for (int pass = 0; pass < 2 && claimed.size() < max; pass++) {
            for (String g : order) {
                int want = Math.min(max - claimed.size(), Math.min(room.get(g), pass == 0 ? share : Integer.MAX_VALUE));
                if (want <= 0) {
                    continue;
                }
                List<InstanceRow> got = ctx.store()
                        .instances()
                        .claim(tx, executorId, List.of(g), labels, want, lease, ctx.nodeId(), dueBy);
                room.merge(g, -got.size(), Integer::sum);
                claimed.addAll(got);
            }
        }
        return claimed;
    }

    /** Renews the leases the executor still holds; tells it which runs to abandon. */
    public HeartbeatAnswer heartbeat(Heartbeat h) {
        Store store = ctx.store();
        return store.tx(tx -> {
            store.executors().seen(tx, h.executorId());
            InstanceStore.Renewal plain = store.instances()
                    .renew(
                            tx,
                            h.executorId(),
                            Shards.plain(h.held()),
                            ctx.config().leaseMillis());
            List<RunRef> sharded = Shards.sharded(h.held());
            List<RunRef> lost = new ArrayList<>(plain.lost());
            List<RunRef> lostShards = shards.renewLeases(tx, h.executorId(), sharded);
            lost.addAll(lostShards);
            // Only what was renewed: a run whose row was busy keeps the lease it had, and the executor counts from
            // then.
            List<RunRef> renewed = new ArrayList<>(plain.renewed());
            sharded.stream().filter(ref -> !lostShards.contains(ref)).forEach(renewed::add);
            return new HeartbeatAnswer(renewed, lost);
        });
    }

    public ReportAnswer started(Started s) {
        if (s.run().sharded()) {
            return shards.started(s);
        }
        ReportAnswer answer = grouped.started(s);
        if (answer != null) {
            return answer;
        }
        Store store = ctx.store();
        return store.tx(tx -> {
            if (!store.instances()
                    .recordStarted(tx, s.run(), s.executorId(), s.pid(), actor(s.executorId()), ctx.nodeId())) {
                return refuse(tx, s.run(), s.executorId(), "started");
            }
            return ReportAnswer.OK;
        });
    }

    public ReportAnswer log(LogChunk raw) {
        LogChunk chunk = masked(raw);
        if (chunk.run().sharded()) {
            return shards.log(chunk);
        }
        ReportAnswer answer = grouped.logged(chunk);
        if (answer != null) {
            return answer;
        }
        Store store = ctx.store();
        return store.tx(tx -> {
            if (!store.instances().holds(tx, chunk.run(), chunk.executorId())) {
                return ReportAnswer.refused("attempt " + chunk.run().attempt() + " of instance "
                        + chunk.run().instanceId() + " is not held by executor " + chunk.executorId());
            }
            store.logs().append(tx, chunk.run(), chunk.stream(), chunk.lines());
            return ReportAnswer.OK;
        });
    }

    public ReportAnswer complete(Completion raw) {
        Completion c = masked(raw);
        if (c.run().sharded()) {
            return shards.complete(c);
        }
        if (c.success()) {
            // Most reports are successes of runs whose end hands nothing on: committed in groups.
            ReportAnswer answer = grouped.succeeded(c);
            if (answer != null) {
                return answer;
            }
        }
        Store store = ctx.store();
        ReportAnswer answer = store.tx(tx -> {
            InstanceRow run = store.instances().find(tx, c.run().instanceId()).orElse(null);
            if (run == null) {
                return ReportAnswer.refused("no instance " + c.run().instanceId());
            }
            if (run.attempt() != c.run().attempt()) {
                return refuse(tx, c.run(), c.executorId(), "completion");
            }
            // A start the completion carries is recorded first, fenced like a "started" report.
            if (c.pid() != null
                    && !store.instances()
                            .recordStarted(tx, c.run(), c.executorId(), c.pid(), actor(c.executorId()), ctx.nodeId())) {
                return refuse(tx, c.run(), c.executorId(), "completion");
            }
            boolean applied = c.success()
                    ? outcomes.succeed(tx, run, c.executorId(), c.exitCode(), c.message(), actor(c.executorId()))
                    : outcomes.fail(
                            tx,
                            run,
                            c.executorId(),
                            c.failureKind() == null ? FailureKind.EXIT_CODE : c.failureKind(),
                            c.exitCode(),
                            c.message(),
                            actor(c.executorId()));
            if (!applied) {
                return refuse(tx, c.run(), c.executorId(), "completion");
            }
            store.logs().appendAll(tx, tail(c));
            return ReportAnswer.OK;
        });
        return answer;
    }

    /** The output a completion carries, as log chunks of the attempt it completes (whatever runs its chunks name). */
    static List<LogStore.Chunk> tail(Completion c) {
        return c.tail().stream()
                .map(chunk -> new LogStore.Chunk(c.run(), chunk.stream(), chunk.lines()))
                .toList();
    }

    /** A running handler asks for a person's approval (fenced: only the executor holding the run may). */
    public ReportAnswer requestApproval(ApprovalAsk ask) {
        boolean holds = ctx.store().tx(tx -> ctx.store().instances().holds(tx, ask.run(), ask.executorId()));
        if (!holds) {
            return ReportAnswer.refused("executor " + ask.executorId() + " does not hold attempt "
                    + ask.run().attempt() + " of instance " + ask.run().instanceId());
        }
        approvals.requestMidRun(ask.run().instanceId(), actor(ask.executorId()), ask.summary());
        return ReportAnswer.OK;
    }

    /** The state of a run the executor holds, in {@code reason}; refused when another attempt or executor has it. */
    public ReportAnswer runState(RunStateQuery q) {
        if (q.run().sharded()) {
            return shards.runState(q.run(), q.executorId());
        }
        return ctx.store()
                .tx(tx -> ctx.store()
                        .instances()
                        .find(tx, q.run().instanceId())
                        .filter(r -> r.attempt() == q.run().attempt()
                                && q.executorId().equals(r.executorId()))
                        .map(r -> new ReportAnswer(true, r.state().name()))
                        .orElse(ReportAnswer.refused("executor " + q.executorId() + " does not hold attempt "
                                + q.run().attempt() + " of instance " + q.run().instanceId())));
    }

    /**
     * An async HTTP action's service reports the outcome itself ({@code POST /api/instances/{id}/complete}).
     * Fenced by the attempt: a report for an attempt that is over (retried, timed out, terminated) is refused.
     */
    public ReportAnswer completeFromService(
            long instanceId, int attempt, boolean success, Integer status, String message, String actor) {
        return completeRunFromService(
                instanceId, attempt, success, status, ctx.secrets().mask().apply(message), actor);
    }

    private ReportAnswer completeRunFromService(
            long instanceId, int attempt, boolean success, Integer status, String message, String actor) {
        Store store = ctx.store();
        return store.tx(tx -> {
            InstanceRow run = store.instances()
                    .find(tx, instanceId)
                    .orElseThrow(() -> new NotFoundException("no instance " + instanceId));
            if (run.attempt() != attempt || run.state() != InstanceState.RUNNING) {
                return refuse(tx, new RunRef(instanceId, attempt), actor, "completion");
            }
            boolean applied = success
                    ? outcomes.succeed(
                            tx,
                            run,
                            run.executorId(),
                            status,
                            message == null ? "reported by the service" : message,
                            actor)
                    : outcomes.fail(
                            tx,
                            run,
                            run.executorId(),
                            status == null ? FailureKind.EXIT_CODE : FailureKind.HTTP_STATUS,
                            status,
                            message,
                            actor);
            return applied ? ReportAnswer.OK : refuse(tx, new RunRef(instanceId, attempt), actor, "completion");
        });
    }

    /** {@link #completeFromService} for one shard of a sharded run ({@code shard} null: the run itself). */
    public ReportAnswer completeFromService(
            long instanceId,
            Integer shard,
            int attempt,
            boolean success,
            Integer status,
            String message,
            String actor) {
        String masked = ctx.secrets().mask().apply(message);
        return shard == null
                ? completeRunFromService(instanceId, attempt, success, status, masked, actor)
                : shards.completeFromService(instanceId, shard, attempt, success, status, masked, actor);
    }

    /*
     * Output and messages from executors and services come in by these reports only, so they are masked here, before
     * any path stores them (one run's chunk alone, a group's, a shard's, a completion's tail): an executor masks what it
     * sends already, and this keeps what an older executor, an SDK worker or a service sends from reaching the database.
     */

    private LogChunk masked(LogChunk chunk) {
        SecretMask mask = ctx.secrets().mask();
        return mask.isEmpty()
                ? chunk
                : new LogChunk(chunk.executorId(), chunk.run(), chunk.stream(), mask.apply(chunk.lines()));
    }

    private Completion masked(Completion c) {
        SecretMask mask = ctx.secrets().mask();
        if (mask.isEmpty()) {
            return c;
        }
        return new Completion(
                c.executorId(),
                c.run(),
                c.success(),
                c.failureKind(),
                c.exitCode(),
                mask.apply(c.message()),
                c.pid(),
                c.tail().stream().map(this::masked).toList());
    }

    /** A report from an executor that does not hold the attempt: refused, and the refusal is on record. */
    private ReportAnswer refuse(Tx tx, RunRef ref, String executorId, String what) {
        String reason = what + " for attempt " + ref.attempt() + " of instance " + ref.instanceId() + " refused: "
                + executorId + " does not hold its lease (the attempt is over)";
        if (ctx.store().instances().find(tx, ref.instanceId()).isPresent()) {
            ctx.store()
                    .events()
                    .appendForAttempt(
                            tx,
                            ref.instanceId(),
                            ref.attempt(),
                            EventType.REPORT_REFUSED,
                            actor(executorId),
                            ctx.nodeId(),
                            reason,
                            Map.of("attempt", ref.attempt()));
        }
        return ReportAnswer.refused(reason);
    }

    /** Fails runs whose executor stopped heartbeating (invariant 5); returns how many. */
    public int reapExpiredLeases(int limit) {
        Store store = ctx.store();
        int n = 0;
        for (InstanceRow run : store.tx(tx -> store.instances().expiredLeases(tx, limit))) {
            // One transaction per run: each locks its task first; a run another node reaped meanwhile is fenced out.
            if (store.tx(tx -> outcomes.fail(
                    tx,
                    run,
                    run.executorId(),
                    FailureKind.EXECUTOR_LOST,
                    null,
                    "lease of executor " + run.executorId() + " expired at " + run.leaseExpiresAt() + " (no heartbeat)",
                    "scheduler"))) {
                n++;
            }
        }
        return n + shards.reapExpiredLeases(limit);
    }
}
