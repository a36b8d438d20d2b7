package dev.ax.scheduler;

import dev.ax.domain.protocol.Poll;
import dev.ax.domain.protocol.WorkItem;
import dev.ax.domain.run.FailureKind;
import dev.ax.domain.task.TaskDefinition;
import dev.ax.store.ClaimStore;
import dev.ax.store.RunRow;
import dev.ax.store.RunStore;
import dev.ax.store.Store;
import dev.ax.store.Tx;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

/**
 * Which READY runs and shards an executor's poll takes, and in which transaction: a claim at once
 * while few are written, else with the other claims that queued meanwhile (one transaction for
 * several, at most {@link #CLAIM_WRITERS} at a time); fairly across an executor's groups,
 * within each group's capacity; runs fired ahead claimed before their slot and handed out at it.
 * A claimed run is rendered into its work item here, or fans out into shards.
 */
final class Claims {
    private final NodeContext ctx;
    private final Outcomes outcomes;
    private final Shards shards;

    Claims(NodeContext ctx, Outcomes outcomes, Shards shards) {
        this.ctx = ctx;
        this.outcomes = outcomes;
        this.shards = shards;
    }

    /**
     * When the next work for a poll is due: now (a READY run or shard due), at a slot ahead (a run fired ahead), or
     * null when none waits. {@code deadline} is that slot on this JVM's {@link System#nanoTime}, measured from the
     * database's clock once its answer was back, so never before the slot by the database.
     */
    record Due(Instant slot, long deadline) {
        boolean now() {
            return slot == null;
        }

        long nanosLeft() {
            return deadline - System.nanoTime();
        }
    }

    Due due(Poll p, List<String> labels) {
        if (ctx.store().tx(tx -> shards.readyFor(tx, p.executorId(), p.groups(), labels))) {
            return new Due(null, System.nanoTime());
        }
        return nextReady(p.groups(), labels);
    }

    /**
     * The earliest READY run of {@code groups} for an executor with {@code labels}, as {@link Due}. Polls woken together
     * (a signal wakes every poll waiting on this node) share one question: a poll that asks while another's same
     * question is out, with no work signalled since that one began, takes its answer. Twenty polls each asking anew
     * read the READY index twenty times for one answer; on MariaDB, where each read walks past the index entries of
     * every run claimed since InnoDB last purged, those reads were a fifth of the server's statement time at W1
     * N = 10,000.
     */
    private Due nextReady(List<String> groups, List<String> labels) {
        long generation = ctx.signals().workGeneration();
        List<List<String>> question = List.of(groups, labels);
        Question mine = new Question(generation, new CompletableFuture<>());
        Question out = asking.merge(question, mine, (old, m) -> old.generation() == generation ? old : m);
        if (out == mine) {
            try {
                Optional<ClaimStore.NextReady> next =
                        ctx.store().tx(tx -> ctx.store().claims().nextReady(tx, groups, labels));
                long measured = System.nanoTime();
                mine.answer()
                        .complete(next.map(n -> n.until().isZero()
                                        ? new Due(null, measured)
                                        : new Due(
                                                n.readyAt(),
                                                measured + n.until().toNanos()))
                                .orElse(null));
            } catch (RuntimeException | Error e) {
                mine.answer().completeExceptionally(e);
                throw e;
            } finally {
                asking.remove(question, mine);
            }
        }
        try {
            return out.answer().join();
        } catch (CompletionException e) {
            throw e.getCause() instanceof RuntimeException re ? re : e;
        }
    }

    /** A question about the READY index out now: the work generation when it was asked, and its answer once back. */
    private record Question(long generation, CompletableFuture<Due> answer) {}

    /** The questions out now, by groups and labels. */
    private final Map<List<List<String>>, Question> asking = new ConcurrentHashMap<>();

    /**
     * Claims the runs of {@code due}'s slot (and any due before it), and hands them out at the slot: empty when
     * another executor took them. A claimed run that fanned out into shards hands out none of them before the slot
     * either (their {@code ready_at} is the slot); polls on this node are told of them at the slot.
     *
     * <p>The wait for the slot is not cut short by an interrupt (an executor closing): the runs are claimed, and are
     * handed out at their slot, never before, with the interrupt kept for the caller. A caller gone by then leaves
     * them to their leases, as it would a claim answered while it went away.
     */
    Optional<List<WorkItem>> claimAhead(String executorId, List<String> groups, List<String> labels, int max, Due due) {
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

    /** One executor's claim, as its poll asks for it: runs due now, or ({@code dueBy} set) also runs fired ahead due by then. */
    private record ClaimRequest(String executorId, List<String> groups, List<String> labels, int max, Instant dueBy) {
        ClaimRequest(String executorId, List<String> groups, List<String> labels, int max) {
            this(executorId, groups, labels, max, null);
        }
    }

    /** What one claim got: the runs to hand out, and runs to fail after the commit (their templates do not render). */
    private record Claimed(List<WorkItem> items, List<RunRow> unrenderable, List<String> reasons, boolean fannedOut) {}

    /**
     * Polls on this node claim together: a claim goes at once in a transaction of its own while fewer
     * than {@link #CLAIM_WRITERS} are written, and the claims queued meanwhile go into the next one,
     * one read of the READY index for those of one group and labels ({@code claimEach}). Twenty
     * executors each claiming in a transaction of its own stepped over one another's locked rows at
     * the head of the READY index (each claim tries, and skips, every row another holds) and committed
     * twenty times: on PostgreSQL alone, four claimers taking five hundred runs a transaction spent
     * 0.15 ms of the machine's CPU per run where sixteen claimers taking a hundred spent 0.19–0.22 ms.
     * On MariaDB each read of the index also walks past the entries of the runs claimed since InnoDB
     * last purged; with only executors working through a backlog claiming together (their last claim
     * came back full), the others' claims were 70 % of its statement time at W1 N = 10,000, and AX ran
     * 4,210–5,090 runs a second there against 4,610–6,090 with every claim claiming together.
     *
     * <p>Runs fired ahead are claimed apart, at once, by the polls that hand them out at their slot
     * ({@link #claimAhead}). A group's transaction that fails fails each claim in it: their polls fail,
     * and their executors poll again.
     */
    private final GroupCommit<ClaimRequest, Claimed> claims =
            new GroupCommit<>(this::claimTogether, CLAIM_WRITERS, CLAIMS_PER_TRANSACTION);

    static final int CLAIM_WRITERS = 4;
    static final int CLAIMS_PER_TRANSACTION = 10;

    /** Slots fired ahead that executors' last polls on this node ended for: their next polls claim them at once. */
    private final Map<String, Due> expected = new ConcurrentHashMap<>();

    /** The executor's poll ended because the runs of {@code due}'s slot may be claimed now. */
    void expect(String executorId, Due due) {
        expected.put(executorId, due);
    }

    /** The slot the executor's last poll ended for, if it did ({@link #expect}), forgotten here; else null. */
    Due takeExpected(String executorId) {
        return expected.remove(executorId);
    }

    List<WorkItem> claim(String executorId, List<String> groups, List<String> labels, int max) {
        ClaimRequest request = new ClaimRequest(executorId, groups, labels, max);
        Claimed claimed = claims.submit(request);
        failUnrenderable(claimed, executorId);
        if (claimed.fannedOut()) {
            ctx.signals().workAvailable(); // the other executors of the group take the other shards
        }
        return claimed.items();
    }

    /**
     * Fails the claimed runs whose templates do not render (they would fail the same way on every attempt), outside the
     * claim transaction: failing locks the task row, and no transaction may take a task lock while it holds run
     * locks (the one lock order is task first).
     */
    private void failUnrenderable(Claimed claimed, String executorId) {
        for (int i = 0; i < claimed.unrenderable().size(); i++) {
            RunRow run = claimed.unrenderable().get(i);
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
                List<List<RunRow>> runs = claimRuns(tx, requests);
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
     * claimed together ({@link RunStore#claimEach}: one read of the READY index
     * for all of them, where each claim of a group read it anew and stepped over the runs the
     * claims before it had locked); the others one by one, fairly across their groups.
     */
    private List<List<RunRow>> claimRuns(Tx tx, List<ClaimRequest> requests) {
        List<List<RunRow>> runs = new ArrayList<>(Collections.nCopies(requests.size(), List.<RunRow>of()));
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
            List<ClaimStore.Claimant> claimants = alike.stream()
                    .map(i -> new ClaimStore.Claimant(
                            requests.get(i).executorId(), requests.get(i).max()))
                    .toList();
            List<List<RunRow>> got = ctx.store()
                    .claims()
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
    private Claimed handOut(Tx tx, ClaimRequest r, List<RunRow> claimed) {
        List<WorkItem> out = new ArrayList<>(claimed.size());
        List<RunRow> unrenderable = new ArrayList<>();
        List<String> reasons = new ArrayList<>();
        boolean fannedOut = false;
        for (RunRow run : claimed) {
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
    private List<RunRow> claimFairly(
            Tx tx, String executorId, List<String> groups, List<String> labels, int max, Instant dueBy) {
        long lease = ctx.config().leaseMillis();
        List<String> order = new ArrayList<>(groups);
        Collections.rotate(order, Math.floorMod(rotation.getAndIncrement(), order.size()));
        Map<String, Integer> room = new HashMap<>();
        for (String g : order) {
            Integer capacity = ctx.config().groupCapacity().get(g);
            if (capacity != null) {
                // Counted under the group's lock, which claimTogether took.
                room.put(g, Math.max(0, capacity - ctx.store().claims().countRunning(tx, g)));
            } else {
                room.put(g, Integer.MAX_VALUE);
            }
        }
        List<RunRow> claimed = new ArrayList<>();
        int share = (max + order.size() - 1) / order.size();
        for (int pass = 0; pass < 2 && claimed.size() < max; pass++) {
            for (String g : order) {
                int want = Math.min(max - claimed.size(), Math.min(room.get(g), pass == 0 ? share : Integer.MAX_VALUE));
                if (want <= 0) {
                    continue;
                }
                List<RunRow> got = ctx.store()
                        .claims()
                        .claim(tx, executorId, List.of(g), labels, want, lease, ctx.nodeId(), dueBy);
                room.merge(g, -got.size(), Integer::sum);
                claimed.addAll(got);
            }
        }
        return claimed;
    }

    /** Forgets the slots expected by the executors not among {@code remembered} (they stopped polling this node). */
    void retainExpectedOf(Set<String> remembered) {
        expected.keySet().retainAll(remembered);
    }
}
