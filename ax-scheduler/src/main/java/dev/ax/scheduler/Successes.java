package dev.ax.scheduler;

import dev.ax.domain.protocol.Completion;
import dev.ax.domain.protocol.ReportAnswer;
import dev.ax.store.InstanceRow;
import dev.ax.store.InstanceStore;
import dev.ax.store.Store;
import dev.ax.store.TaskRow;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reports of successful runs, committed in groups ({@link GroupCommit}): the successes that arrive
 * while another group is being written go together in the next transaction — one read of the
 * runs, one of their tasks, one statement for every move and its SUCCEEDED event, one commit.
 * One commit per run was two thirds of PostgreSQL's busy time at 10,000 runs a second.
 *
 * <p>Only successes that {@link Outcomes#endsAlone end alone} go this way (their end hands nothing to
 * other runs, so the transaction locks no task row and the one lock order holds). Everything else
 * — failures, limited tasks, dependents, canaries, workflow nodes, refusals — answers
 * {@code null}: the caller takes the single way ({@link Outcomes#succeed} in its own transaction),
 * as does every report of a group whose transaction failed.
 */
final class Successes {
    private static final Logger LOG = LoggerFactory.getLogger(Successes.class);
    /** Groups written at once: two transactions keep PostgreSQL busy while the next group forms. */
    static final int WRITERS = 2;
    static final int MAX_GROUP = 500;

    private final NodeContext ctx;
    private final Outcomes outcomes;
    private final GroupCommit<Completion, ReportAnswer> commits;

    Successes(NodeContext ctx, Outcomes outcomes) {
        this.ctx = ctx;
        this.outcomes = outcomes;
        this.commits = new GroupCommit<>(this::writeSafely, WRITERS, MAX_GROUP);
    }

    /** The answer to a successful completion of an unsharded run, or null when it must take the single way. */
    ReportAnswer complete(Completion c) {
        return commits.submit(c);
    }

    private List<ReportAnswer> writeSafely(List<Completion> group) {
        try {
            return ctx.store().tx(tx -> write(tx, group));
        } catch (RuntimeException e) {
            // Nothing of the group was committed: each report goes the single way, where its own error (if any) shows.
            LOG.debug("a group of {} successes took the single way: {}", group.size(), e.toString());
            List<ReportAnswer> none = new ArrayList<>(group.size());
            group.forEach(c -> none.add(null));
            return none;
        }
    }

    private List<ReportAnswer> write(dev.ax.store.Tx tx, List<Completion> group) {
        Store store = ctx.store();
        Map<Long, InstanceRow> runs = store.instances().findAll(tx, group.stream().map(c -> c.run().instanceId()).collect(Collectors.toSet()))
                .stream().collect(Collectors.toMap(InstanceRow::id, Function.identity()));
        Map<Long, TaskRow> tasks = store.tasks().findAllById(tx, runs.values().stream().map(InstanceRow::taskId).collect(Collectors.toSet()));
        List<InstanceStore.Success> alone = new ArrayList<>();
        Set<Long> seen = new HashSet<>();
        ReportAnswer[] answers = new ReportAnswer[group.size()];
        for (int i = 0; i < group.size(); i++) {
            Completion c = group.get(i);
            InstanceRow run = runs.get(c.run().instanceId());
            if (run == null) {
                answers[i] = ReportAnswer.refused("no instance " + c.run().instanceId());
            } else if (seen.add(run.id()) && run.attempt() == c.run().attempt() && c.executorId().equals(run.executorId())
                    && run.state() == dev.ax.domain.run.InstanceState.RUNNING && outcomes.endsAlone(tx, run, Optional.ofNullable(tasks.get(run.taskId())))) {
                String actor = "executor:" + c.executorId();
                alone.add(new InstanceStore.Success(run.id(), run.attempt(), c.executorId(), c.exitCode(), c.message(), actor,
                        c.message() == null ? "exit " + c.exitCode() : c.message()));
            }
        }
        Set<Long> moved = outcomes.succeedAlone(tx, alone);
        for (int i = 0; i < group.size(); i++) {
            if (answers[i] == null && moved.remove(group.get(i).run().instanceId())) {
                answers[i] = ReportAnswer.OK;
            }
        }
        return java.util.Arrays.asList(answers);
    }
}
