package dev.ax.store;

import dev.ax.domain.run.RunState;
import java.sql.SQLException;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * The SQL of task dependencies ({@code dependsOn}): each run's business date, the runs that wait
 * for their dependencies, and the few indexed looks that readiness is decided on.
 */
public final class DependencyStore {
    /** Runs that count as the upstream's work: an approval preview does not. */
    private static final String WORK = " AND cause <> 'PREVIEW'";

    /** A run waiting for its dependencies, with what readiness is decided on. */
    public record Waiting(RunRow run, LocalDate businessDate, Instant deadline) {}

    /** The newest upstream run that decides a dependency: its id and state. */
    public record Found(long instanceId, RunState state) {}

    /** Replaces the upstream task names a task waits for (its current definition's dependsOn). */
    public void setUpstreams(Tx tx, long taskId, List<String> upstreamNames) {
        tx.update("DELETE FROM ax_task_dependency WHERE task_id = ?", taskId);
        for (String name : upstreamNames) {
            tx.update("INSERT INTO ax_task_dependency (task_id, upstream_name) VALUES (?, ?)", taskId, name);
        }
    }

    /** The tasks whose current definition waits for {@code upstreamName}, by id (the order their rows are locked in). */
    public List<Long> dependentTaskIds(Tx tx, String upstreamName) {
        return tx.query(
                "SELECT task_id FROM ax_task_dependency WHERE upstream_name = ? ORDER BY task_id",
                r -> r.lng("task_id"),
                upstreamName);
    }

    public Optional<LocalDate> businessDate(Tx tx, long instanceId) {
        return tx.queryOne(
                        "SELECT business_date FROM ax_instance WHERE id = ?", r -> r.str("business_date"), instanceId)
                .map(s -> LocalDate.parse(s.substring(0, 10)));
    }

    /** When a waiting run gives up. */
    public void setDeadline(Tx tx, long instanceId, Instant deadline) {
        tx.update("UPDATE ax_instance SET dependency_deadline = ? WHERE id = ?", deadline, instanceId);
    }

    /** A task's runs waiting for their dependencies, oldest first. */
    public List<Waiting> waitingOfTask(Tx tx, long taskId, int limit) {
        return tx.query(
                "SELECT " + RunStore.COLUMNS + ", business_date, dependency_deadline FROM ax_instance"
                        + " WHERE task_id = ? AND state = 'WAITING_DEPENDENCY' ORDER BY id LIMIT ?",
                DependencyStore::waiting,
                taskId,
                limit);
    }

    /** One run with its business date and deadline, whatever its state. */
    public Optional<Waiting> find(Tx tx, long instanceId) {
        return tx.queryOne(
                "SELECT " + RunStore.COLUMNS + ", business_date, dependency_deadline FROM ax_instance WHERE id = ?",
                DependencyStore::waiting,
                instanceId);
    }

    /** Waiting runs whose deadline passed by the database's clock. */
    public List<Waiting> pastDeadline(Tx tx, int limit) {
        return tx.query(
                "SELECT " + RunStore.COLUMNS + ", business_date, dependency_deadline FROM ax_instance"
                        + " WHERE state = 'WAITING_DEPENDENCY' AND dependency_deadline < CURRENT_TIMESTAMP ORDER BY dependency_deadline LIMIT ?",
                DependencyStore::waiting,
                limit);
    }

    /** How many of the newest matching upstream runs are read to find the one that decides. */
    static final int CANDIDATES = 20;

    /** sameDate: the newest runs of the upstream task for one business date, newest first. */
    public List<Found> onDate(Tx tx, long taskId, LocalDate date) {
        return tx.query(
                "SELECT id, state FROM ax_instance WHERE task_id = ? AND business_date = ?" + WORK
                        + " ORDER BY id DESC LIMIT ?",
                DependencyStore::found,
                taskId,
                date,
                CANDIDATES);
    }

    /**
     * sameDate for runs without a business date, those from before anything depended on the
     * upstream (or from before V21): the runs scheduled within the date in the upstream task's
     * zone, {@code [from, to)}.
     */
    public List<Found> undatedBetween(Tx tx, long taskId, Instant from, Instant to) {
        return scheduledWithin(tx, taskId, from, to, " AND business_date IS NULL");
    }

    /** latest: the newest success of the upstream that finished at or after {@code since}. */
    public Optional<Found> successSince(Tx tx, long taskId, Instant since) {
        return tx.queryOne(
                "SELECT id, state FROM ax_instance WHERE task_id = ? AND state = 'SUCCESS' AND finished_at >= ?" + WORK
                        + " ORDER BY id DESC LIMIT 1",
                DependencyStore::found,
                taskId,
                since);
    }

    /** latest, when nothing succeeded: the newest upstream runs scheduled at or after {@code since}, newest first. */
    public List<Found> since(Tx tx, long taskId, Instant since) {
        return scheduledWithin(tx, taskId, since, null, "");
    }

    /**
     * The newest runs of a task scheduled in {@code [from, to)} ({@code to} null: no end), newest
     * first. Scheduled runs are read by their fire key (SlotKeys), the others by the index of the
     * runs that are not scheduled (V33): a task's own index by slot would cost every scheduled run
     * of every task a write into it.
     */
    private static List<Found> scheduledWithin(Tx tx, long taskId, Instant from, Instant to, String and) {
        String range = " AND scheduled_at >= ?" + (to == null ? "" : " AND scheduled_at < ?");
        List<Object> times = to == null ? List.of(from) : List.of(from, to);
        List<Object> args = new ArrayList<>(
                List.of(taskId, SlotKeys.floor(from), to == null ? SlotKeys.MAX : SlotKeys.ceiling(to)));
        args.addAll(times);
        args.addAll(List.of(CANDIDATES, taskId));
        args.addAll(times);
        args.addAll(List.of(CANDIDATES, CANDIDATES));
        return tx.query(
                "SELECT id, state FROM (SELECT id, state FROM ax_instance WHERE task_id = ? AND " + SlotKeys.SCHEDULED
                        + " AND fire_key >= ? AND fire_key < ?" + range + and + " ORDER BY id DESC LIMIT ?) s"
                        + " UNION ALL SELECT id, state FROM (SELECT id, state FROM ax_instance WHERE task_id = ? AND "
                        + SlotKeys.NOT_SCHEDULED
                        + range + and + WORK + " ORDER BY id DESC LIMIT ?) o ORDER BY id DESC LIMIT ?",
                DependencyStore::found,
                args.toArray());
    }

    /**
     * previousSlot: the run of the slot before {@code scheduledAt} (scheduled and backfill runs), or
     * the newest retry / re-run of it: slot N+1 waits for slot N however slot N got done.
     */
    public List<Found> previousSlot(Tx tx, long taskId, Instant scheduledAt) {
        // The newest scheduled run before it, by fire key (a few: keys of one second do not sort by their fraction),
        // and the newest backfill run before it; the later of them.
        record Slot(long id, Instant at) {}
        List<Slot> candidates = new ArrayList<>(tx.query(
                "SELECT id, scheduled_at FROM ax_instance WHERE task_id = ? AND " + SlotKeys.SCHEDULED
                        + " AND fire_key < ? AND scheduled_at < ? ORDER BY fire_key DESC LIMIT 5",
                r -> new Slot(r.lng("id"), r.instant("scheduled_at")),
                taskId,
                SlotKeys.ceiling(scheduledAt),
                scheduledAt));
        candidates.addAll(tx.query(
                "SELECT id, scheduled_at FROM ax_instance WHERE task_id = ? AND " + SlotKeys.NOT_SCHEDULED
                        + " AND cause = 'BACKFILL' AND scheduled_at < ? ORDER BY scheduled_at DESC, id DESC LIMIT 1",
                r -> new Slot(r.lng("id"), r.instant("scheduled_at")),
                taskId,
                scheduledAt));
        Optional<Long> slotRun = candidates.stream()
                .max(Comparator.comparing(Slot::at).thenComparingLong(Slot::id))
                .map(Slot::id);
        if (slotRun.isEmpty()) {
            return List.of();
        }
        return tx.query(
                "SELECT id, state FROM ax_instance WHERE task_id = ? AND (id = ? OR parent_id = ?)" + WORK
                        + " ORDER BY id DESC LIMIT ?",
                DependencyStore::found,
                taskId,
                slotRun.get(),
                slotRun.get(),
                CANDIDATES);
    }

    private static Found found(Tx.Row r) throws SQLException {
        return new Found(r.lng("id"), r.enumOf(RunState.class, "state"));
    }

    private static Waiting waiting(Tx.Row r) throws SQLException {
        String date = r.str("business_date");
        return new Waiting(
                RunStore.map(r),
                date == null ? null : LocalDate.parse(date.substring(0, 10)),
                r.instant("dependency_deadline"));
    }
}
