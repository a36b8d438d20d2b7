package dev.ax.scheduler;

import dev.ax.domain.protocol.Completion;
import dev.ax.domain.protocol.LogChunk;
import dev.ax.domain.protocol.ReportAnswer;
import dev.ax.domain.protocol.Started;
import dev.ax.domain.run.RunState;
import dev.ax.store.LogStore;
import dev.ax.store.RunBatches;
import dev.ax.store.RunRow;
import dev.ax.store.Store;
import dev.ax.store.TaskStore;
import dev.ax.store.Tx;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The reports every run sends — "started", its log and, mostly, "succeeded" — committed in groups
 * ({@link GroupCommit}): the reports that arrive while a group is being written go together in
 * the next transaction, one statement and one commit for all of them. One commit per report was
 * two thirds of PostgreSQL's busy time at 10,000 runs a second.
 *
 * <p>A success goes this way only when its run {@link Outcomes#endsAlone ends alone} (its end hands
 * nothing to other runs, so the transaction locks no task row and the one lock order holds).
 * Everything else — failures, limited tasks, dependents, canaries, workflow nodes, and every
 * report refused or lost in a race — answers {@code null}: the caller takes the single way in its
 * own transaction, which refuses with a REPORT_REFUSED event where it must. So does every report
 * of a group whose transaction failed (a deadlock, a lost connection): nothing of it committed.
 */
final class GroupedReports {
    private static final Logger LOG = LoggerFactory.getLogger(GroupedReports.class);
    /**
     * Groups written at once, per kind. One: the next group forms while one is written, and the larger the groups,
     * the fewer commits per run. Against two, back to back: W1 N = 10,000 9,891-9,906 -> 10,435-10,611 runs/s
     * (commits per run 0.04 -> 0.02-0.03), HTTP runs 2,222-2,303 -> 2,619-2,701/s, shell runs 334-369 -> 407-426/s.
     */
    static final int WRITERS = 1;

    static final int MAX_GROUP = 500;

    private final NodeContext ctx;
    private final Outcomes outcomes;
    private final GroupCommit<Completion, ReportAnswer> successes;
    private final GroupCommit<Started, ReportAnswer> starts;
    private final GroupCommit<LogChunk, ReportAnswer> logs;

    GroupedReports(NodeContext ctx, Outcomes outcomes) {
        this.ctx = ctx;
        this.outcomes = outcomes;
        this.successes = new GroupCommit<>(group -> inOneTransaction(group, this::succeed), WRITERS, MAX_GROUP);
        this.starts = new GroupCommit<>(group -> inOneTransaction(group, this::start), WRITERS, MAX_GROUP);
        this.logs = new GroupCommit<>(group -> inOneTransaction(group, this::log), WRITERS, MAX_GROUP);
    }

    /** The answer to a successful completion of an unsharded run, or null when it must take the single way. */
    ReportAnswer succeeded(Completion c) {
        return successes.submit(c);
    }

    /** The answer to "started" of an unsharded run, or null when it must take the single way. */
    ReportAnswer started(Started s) {
        return starts.submit(s);
    }

    /** The answer to a chunk of an unsharded run's log, or null when it must take the single way. */
    ReportAnswer logged(LogChunk chunk) {
        return logs.submit(chunk);
    }

    private <R> List<ReportAnswer> inOneTransaction(List<R> group, BiFunction<Tx, List<R>, ReportAnswer[]> write) {
        try {
            return Arrays.asList(ctx.store().tx(tx -> {
                // A group looks its runs up by id. On a new database the run table grows faster than its statistics,
                // and
                // for the first seconds the planner read all of it for each group (40-100 ms a group, at 10,000 runs a
                // second).
                tx.preferPlainIndexScans();
                return write.apply(tx, group);
            }));
        } catch (RuntimeException e) {
            LOG.debug("a group of {} reports takes the single way: {}", group.size(), e.toString());
            return Arrays.asList(new ReportAnswer[group.size()]);
        }
    }

    private ReportAnswer[] succeed(Tx tx, List<Completion> group) {
        Store store = ctx.store();
        Map<Long, RunRow> runs = runsOf(tx, group.stream().map(c -> c.run().instanceId()));
        Map<Long, TaskStore.EndFlags> tasks = store.tasks()
                .endFlags(tx, runs.values().stream().map(RunRow::taskId).collect(Collectors.toSet()));
        List<Completion> alone = new ArrayList<>();
        Set<Long> seen = new HashSet<>();
        ReportAnswer[] answers = new ReportAnswer[group.size()];
        for (int i = 0; i < group.size(); i++) {
            Completion c = group.get(i);
            RunRow run = runs.get(c.run().instanceId());
            if (run == null) {
                answers[i] = ReportAnswer.refused("no run " + c.run().instanceId());
            } else if (seen.add(run.id())
                    && run.heldBy(c.run().attempt(), c.executorId())
                    && run.state() == RunState.RUNNING
                    && outcomes.endsAlone(tx, run, Optional.ofNullable(tasks.get(run.taskId())))) {
                alone.add(c);
            }
        }
        // The starts these completions carry, first: a run whose start is not recorded takes the single way (refused
        // there).
        List<Completion> carrying = alone.stream().filter(c -> c.pid() != null).toList();
        Set<Long> started = carrying.isEmpty()
                ? Set.of()
                : store.runBatches()
                        .recordStartedAll(
                                tx,
                                carrying.stream()
                                        .map(c -> new RunBatches.Start(c.run(), c.executorId(), c.pid()))
                                        .toList(),
                                ctx.nodeId());
        Set<Long> applied = outcomes.succeedAlone(
                tx,
                alone.stream()
                        .filter(c -> c.pid() == null || started.contains(c.run().instanceId()))
                        .map(c -> new RunBatches.Success(
                                c.run().instanceId(),
                                c.run().attempt(),
                                c.executorId(),
                                c.exitCode(),
                                c.message(),
                                outcomes.recordsSuccess(tx, runs.get(c.run().instanceId()))))
                        .toList());
        // The output each applied completion carries, in the same transaction (the first report of a run: a repeat is
        // refused).
        Set<Long> stored = new HashSet<>();
        store.logs()
                .appendAll(
                        tx,
                        group.stream()
                                .filter(c -> applied.contains(c.run().instanceId())
                                        && stored.add(c.run().instanceId()))
                                .flatMap(c -> Reports.tail(c).stream())
                                .toList());
        return answered(group, answers, applied, c -> c.run().instanceId());
    }

    private ReportAnswer[] start(Tx tx, List<Started> group) {
        // A report twice in one group: the first goes here, the other the single way (it is refused there).
        Set<Long> seen = new HashSet<>();
        List<Started> once =
                group.stream().filter(s -> seen.add(s.run().instanceId())).toList();
        Set<Long> recorded = ctx.store()
                .runBatches()
                .recordStartedAll(
                        tx,
                        once.stream()
                                .map(s -> new RunBatches.Start(s.run(), s.executorId(), s.pid()))
                                .toList(),
                        ctx.nodeId());
        return answered(
                group, new ReportAnswer[group.size()], recorded, s -> s.run().instanceId());
    }

    private ReportAnswer[] log(Tx tx, List<LogChunk> group) {
        Map<Long, RunRow> runs = runsOf(tx, group.stream().map(c -> c.run().instanceId()));
        ReportAnswer[] answers = new ReportAnswer[group.size()];
        List<LogStore.Chunk> held = new ArrayList<>();
        for (int i = 0; i < group.size(); i++) {
            LogChunk c = group.get(i);
            RunRow run = runs.get(c.run().instanceId());
            if (run != null && run.heldBy(c.run().attempt(), c.executorId())) {
                held.add(new LogStore.Chunk(c.run(), c.stream(), c.lines()));
                answers[i] = ReportAnswer.OK;
            }
        }
        ctx.store().logs().appendAll(tx, held);
        return answers;
    }

    /** The runs a group reports about, by id, in one query. */
    private Map<Long, RunRow> runsOf(Tx tx, Stream<Long> ids) {
        return ctx.store().runs().findAll(tx, ids.collect(Collectors.toSet())).stream()
                .collect(Collectors.toMap(RunRow::id, Function.identity()));
    }

    /** OK for the first report of each id applied; the rest keep what they have (null: the single way). */
    private static <R> ReportAnswer[] answered(
            List<R> group, ReportAnswer[] answers, Set<Long> applied, Function<R, Long> id) {
        Set<Long> left = new HashSet<>(applied);
        for (int i = 0; i < group.size(); i++) {
            if (answers[i] == null && left.remove(id.apply(group.get(i)))) {
                answers[i] = ReportAnswer.OK;
            }
        }
        return answers;
    }
}
