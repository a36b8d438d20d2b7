package dev.ax.store;

import dev.ax.domain.run.EventType;
import dev.ax.domain.run.RunState;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The routine steps of a run, read from its own columns instead of the event log. A run that is
 * created by the scheduler, claimed, started and succeeds writes no event: its row already says
 * when and by whom (V40 adds the nodes and the time of the start), and four events per run were
 * half of what the hot path wrote. Everything else, decisions and failures, stays an event.
 *
 * <p>A column says one attempt's story; before a run's next attempt overwrites it, the claim
 * writes the earlier attempt's steps as events ({@link EventStore#keepSteps}), so no attempt's
 * claim is lost. A step already written as an event (a success a task's alerts watch, a run someone
 * started, history from before V40) is never derived twice.
 */
final class RoutineEvents {
    private RoutineEvents() {}

    /** In the data of a step written as an event after the fact ({@link EventStore#keepSteps}): when it happened. */
    static final String STEP_AT = "stepAt";

    /** What a routine step needs beyond {@link RunRow}. */
    record Steps(RunRow run, String claimNode, Instant pidAt, String startNode, String endNode) {}

    /** The columns {@link #steps} reads. */
    static final String COLUMNS = RunStore.COLUMNS + ", claim_node, pid_at, start_node, end_node";

    static Steps steps(Tx.Row r) throws SQLException {
        return new Steps(
                RunStore.map(r), r.str("claim_node"), r.instant("pid_at"), r.str("start_node"), r.str("end_node"));
    }

    /**
     * True when a new run's CREATED event says nothing its row does not: the scheduler made it
     * READY for its slot, with no note (a late slot's note is an event).
     */
    static boolean routineCreate(NewRun n) {
        return n.state() == RunState.READY && n.message() == null && EventStore.SCHEDULER_ACTOR.equals(n.actor());
    }

    /** SQL, the same test over a row set with {@code state}, {@code actor} and {@code message}, named {@code alias}. */
    static String routineCreateSql(String alias) {
        return alias + ".state = 'READY' AND " + alias + ".message IS NULL AND " + alias + ".actor = '"
                + EventStore.SCHEDULER_ACTOR + "'";
    }

    /**
     * A run's events merged with the routine steps its columns hold, oldest first, at most
     * {@code limit}. Derived events have id 0: they are no row of the event log.
     */
    static List<EventRow> timeline(List<EventRow> stored, Steps steps, int limit) {
        List<EventRow> all = new ArrayList<>(stored.size() + 4);
        stored.forEach(e -> all.add(whenItHappened(e)));
        all.addAll(derived(steps, stored));
        all.sort(ORDER);
        return all.size() <= limit ? all : List.copyOf(all.subList(0, limit));
    }

    /** A step written after the fact, at the time it happened, its data as it was. */
    static EventRow whenItHappened(EventRow e) {
        Object at = e.data().get(STEP_AT);
        if (at == null) {
            return e;
        }
        Map<String, Object> data = new LinkedHashMap<>(e.data());
        data.remove(STEP_AT);
        return new EventRow(
                e.id(),
                e.instanceId(),
                e.taskId(),
                e.taskName(),
                e.type(),
                e.from(),
                e.to(),
                e.attempt(),
                e.actor(),
                e.nodeId(),
                Instant.parse(at.toString()),
                e.message(),
                data);
    }

    /** By time; at the same instant in the order a run lives (a start and its success may share one transaction). */
    private static final Comparator<EventRow> ORDER = Comparator.comparing(EventRow::at)
            .thenComparingInt(RoutineEvents::phase)
            .thenComparingLong(EventRow::id);

    private static int phase(EventRow e) {
        return switch (e.type()) {
            case CREATED -> 0;
            case CLAIMED -> 1;
            case STARTED -> 2;
            case SUCCEEDED -> 4;
            default -> 3;
        };
    }

    /** The claim and start of the current attempt, as events, unless written already. */
    static List<EventRow> attemptSteps(Steps s, List<EventRow> stored) {
        return derived(s, stored).stream()
                .filter(e -> e.type() == EventType.CLAIMED || e.type() == EventType.STARTED)
                .toList();
    }

    static List<EventRow> derived(Steps s, List<EventRow> stored) {
        RunRow r = s.run();
        List<EventRow> out = new ArrayList<>(4);
        if (stored.stream().noneMatch(e -> e.type() == EventType.CREATED)) {
            Map<String, Object> data = new LinkedHashMap<>();
            data.put("cause", r.cause().wireName());
            data.put("fireKey", r.fireKey());
            out.add(event(
                    r, EventType.CREATED, null, RunState.READY, 0, r.actor(), r.nodeId(), r.createdAt(), null, data));
        }
        String executor = r.executorId();
        String actor = executor == null ? null : "executor:" + executor;
        if (s.claimNode() != null && r.startedAt() != null && !has(stored, EventType.CLAIMED, r.attempt())) {
            out.add(event(
                    r,
                    EventType.CLAIMED,
                    RunState.READY,
                    RunState.RUNNING,
                    r.attempt(),
                    actor,
                    s.claimNode(),
                    r.startedAt(),
                    null,
                    executor == null ? Map.of() : Map.of("executor", executor)));
        }
        if (s.pidAt() != null && r.pid() != null && !has(stored, EventType.STARTED, r.attempt())) {
            out.add(event(
                    r,
                    EventType.STARTED,
                    null,
                    null,
                    r.attempt(),
                    actor,
                    s.startNode(),
                    s.pidAt(),
                    executor == null ? "pid " + r.pid() : LeaseStore.startedMessage(executor, r.pid()),
                    executor == null ? Map.of("pid", r.pid()) : LeaseStore.startedData(executor, r.pid())));
        }
        if (r.state() == RunState.SUCCESS
                && s.endNode() != null
                && r.finishedAt() != null
                && !has(stored, EventType.SUCCEEDED, r.attempt())) {
            out.add(event(
                    r,
                    EventType.SUCCEEDED,
                    RunState.RUNNING,
                    RunState.SUCCESS,
                    r.attempt(),
                    actor,
                    s.endNode(),
                    r.finishedAt(),
                    successMessage(r.exitCode(), r.message()),
                    Map.of()));
        }
        return out;
    }

    /** The message of a success: what the executor said, or its exit code. */
    static String successMessage(Integer exitCode, String message) {
        return message == null ? "exit " + exitCode : message;
    }

    private static boolean has(List<EventRow> stored, EventType type, int attempt) {
        return stored.stream()
                .anyMatch(e ->
                        e.type() == type && Optional.ofNullable(e.attempt()).orElse(-1) == attempt);
    }

    private static EventRow event(
            RunRow r,
            EventType type,
            RunState from,
            RunState to,
            int attempt,
            String actor,
            String node,
            Instant at,
            String message,
            Map<String, Object> data) {
        return new EventRow(
                0, r.id(), r.taskId(), r.taskName(), type, from, to, attempt, actor, node, at, message, data);
    }
}
