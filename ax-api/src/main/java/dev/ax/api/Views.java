package dev.ax.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.ax.domain.run.EventType;
import dev.ax.domain.run.RunState;
import dev.ax.domain.secret.SecretMask;
import dev.ax.domain.task.TaskDefinitionCodec;
import dev.ax.scheduler.Dependencies;
import dev.ax.store.EventRow;
import dev.ax.store.ExecutorRow;
import dev.ax.store.LogStore.LogLine;
import dev.ax.store.RunRow;
import dev.ax.store.ShardRow;
import dev.ax.store.TaskRow;
import dev.ax.store.TaskVersionRow;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * The JSON shapes the API answers with. Records, so a shape is read in one line; the OpenAPI
 * document ({@code openapi.json}) describes the same fields.
 */
public final class Views {
    private Views() {}

    /** A page of a list; {@code next} is the cursor (or id) for the next page, null at the end. */
    public record Page<T>(List<T> items, Object next) {
        public static <T> Page<T> of(List<T> items) {
            return new Page<>(items, null);
        }
    }

    /**
     * A task: its canonical definition (every default written out) and the scheduler's columns.
     *
     * @param warnings only on create and update: things AX accepted but that will not work yet
     * @param counters only on {@code GET /api/tasks/{name}}: a count per event type costs a query per task
     */
    public record TaskView(
            String taskName,
            int version,
            boolean paused,
            String triggerType,
            Instant nextFireAt,
            Map<String, Object> definition,
            Instant createdAt,
            String createdBy,
            Instant updatedAt,
            String updatedBy,
            @JsonInclude(JsonInclude.Include.NON_NULL) List<String> warnings,
            @JsonInclude(JsonInclude.Include.NON_NULL) Counters counters) {
        public static TaskView of(TaskRow t) {
            return of(t, null);
        }

        public static TaskView of(TaskRow t, List<String> warnings) {
            return of(t, warnings, null);
        }

        public static TaskView of(TaskRow t, List<String> warnings, Counters counters) {
            return new TaskView(
                    t.name(),
                    t.version(),
                    t.paused(),
                    t.definition().trigger().type(),
                    t.nextFireAt(),
                    TaskDefinitionCodec.toJson(t.definition()),
                    t.createdAt(),
                    t.createdBy(),
                    t.updatedAt(),
                    t.updatedBy(),
                    warnings,
                    counters);
        }
    }

    /**
     * Runs and slots a task's policies turned away, counted from its events (so they survive restarts
     * and agree on every node).
     *
     * @param overlapSkipped   runs SKIPPED because the task was busy (overflow SKIP)
     * @param queueDropped     runs dropped from a full or replaced queue (queueLimit, QUEUE_ONE)
     * @param missedCaughtUp   missed slots that were run late (misfire FIRE_ONCE / FIRE_ALL)
     * @param missedSlotEvents records of missed slots not run (one record may cover many slots)
     */
    public record Counters(long overlapSkipped, long queueDropped, long missedCaughtUp, long missedSlotEvents) {
        /** The event types counted, in the order of the fields. */
        public static final List<EventType> TYPES = List.of(
                EventType.OVERLAP_SKIPPED,
                EventType.QUEUE_DROPPED,
                EventType.MISFIRE_CAUGHT_UP,
                EventType.MISFIRE_SKIPPED);

        public static Counters of(Map<EventType, Long> counts) {
            return new Counters(
                    counts.getOrDefault(EventType.OVERLAP_SKIPPED, 0L),
                    counts.getOrDefault(EventType.QUEUE_DROPPED, 0L),
                    counts.getOrDefault(EventType.MISFIRE_CAUGHT_UP, 0L),
                    counts.getOrDefault(EventType.MISFIRE_SKIPPED, 0L));
        }
    }

    public record VersionView(
            int version,
            String change,
            String actor,
            Instant at,
            List<Map<String, Object>> diff,
            Map<String, Object> definition) {
        public static VersionView of(TaskVersionRow v) {
            return new VersionView(v.version(), v.change(), v.actor(), v.at(), v.diff(), v.definition());
        }
    }

    /** One link of a trigger chain, from the root to the run shown. */
    public record ChainLink(long instanceId, String cause, String actor) {
        public static ChainLink of(RunRow i) {
            return new ChainLink(i.id(), i.cause().wireName(), i.actor());
        }
    }

    /**
     * One run, with everything an operator asks to see: who fired it, when, on which node and
     * executor, which pid, how it ended, and, while it waits, why.
     */
    public record RunView(
            long id,
            String taskName,
            int taskVersion,
            String cause,
            String fireKey,
            Instant scheduledAt,
            RunState state,
            int attempt,
            int maxAttempts,
            String group,
            String executorId,
            Long pid,
            Integer exitCode,
            String failureKind,
            String message,
            String requestId,
            Map<String, Object> params,
            Instant readyAt,
            Instant leaseExpiresAt,
            Instant createdAt,
            Instant startedAt,
            Instant finishedAt,
            String actor,
            String nodeId,
            List<ChainLink> triggerChain,
            String waitingReason,
            List<Dependencies.WaitingFor> waitingFor,
            @JsonInclude(JsonInclude.Include.NON_EMPTY) List<ShardView> shards) {
        public static RunView of(RunRow i, List<ChainLink> chain, String waitingReason) {
            return of(i, chain, waitingReason, List.of());
        }

        /** @param shards a sharded run's shards ({@code policy.sharding}); empty otherwise, and then not shown */
        public static RunView of(RunRow i, List<ChainLink> chain, String waitingReason, List<ShardRow> shards) {
            return new RunView(
                    i.id(),
                    i.taskName(),
                    i.taskVersion(),
                    i.cause().wireName(),
                    i.fireKey(),
                    i.scheduledAt(),
                    i.state(),
                    i.attempt(),
                    i.maxAttempts(),
                    i.group(),
                    i.executorId(),
                    i.pid(),
                    i.exitCode(),
                    i.failureKind() == null ? null : i.failureKind().name(),
                    i.message(),
                    i.requestId(),
                    i.params(),
                    i.readyAt(),
                    i.leaseExpiresAt(),
                    i.createdAt(),
                    i.startedAt(),
                    i.finishedAt(),
                    i.actor(),
                    i.nodeId(),
                    chain,
                    waitingReason,
                    null,
                    shards.stream().map(ShardView::of).toList());
        }

        /** Its message with the values of secrets masked (a message stored before the secret existed holds it as it was). */
        public RunView masked(SecretMask mask) {
            return new RunView(
                    id,
                    taskName,
                    taskVersion,
                    cause,
                    fireKey,
                    scheduledAt,
                    state,
                    attempt,
                    maxAttempts,
                    group,
                    executorId,
                    pid,
                    exitCode,
                    failureKind,
                    mask.apply(message),
                    requestId,
                    params,
                    readyAt,
                    leaseExpiresAt,
                    createdAt,
                    startedAt,
                    finishedAt,
                    actor,
                    nodeId,
                    triggerChain,
                    waitingReason,
                    waitingFor,
                    shards.stream()
                            .map(s -> new ShardView(
                                    s.index(),
                                    s.total(),
                                    s.state(),
                                    s.attempt(),
                                    s.executor(),
                                    s.pid(),
                                    s.exitCode(),
                                    s.failureKind(),
                                    mask.apply(s.message()),
                                    s.readyAt(),
                                    s.startedAt(),
                                    s.finishedAt()))
                            .toList());
        }

        /** With what a WAITING_DEPENDENCY run waits for: one entry per dependsOn entry. */
        public RunView withWaitingFor(List<Dependencies.WaitingFor> list) {
            return new RunView(
                    id,
                    taskName,
                    taskVersion,
                    cause,
                    fireKey,
                    scheduledAt,
                    state,
                    attempt,
                    maxAttempts,
                    group,
                    executorId,
                    pid,
                    exitCode,
                    failureKind,
                    message,
                    requestId,
                    params,
                    readyAt,
                    leaseExpiresAt,
                    createdAt,
                    startedAt,
                    finishedAt,
                    actor,
                    nodeId,
                    triggerChain,
                    waitingReason,
                    list,
                    shards);
        }
    }

    /** One shard of a sharded run: its own attempts, executor, pid, exit code and times. */
    public record ShardView(
            int index,
            int total,
            String state,
            int attempt,
            String executor,
            Long pid,
            Integer exitCode,
            String failureKind,
            String message,
            Instant readyAt,
            Instant startedAt,
            Instant finishedAt) {
        public static ShardView of(ShardRow s) {
            return new ShardView(
                    s.index(),
                    s.total(),
                    s.state().name(),
                    s.attempt(),
                    s.executorId(),
                    s.pid(),
                    s.exitCode(),
                    s.failureKind() == null ? null : s.failureKind().name(),
                    s.message(),
                    s.readyAt(),
                    s.startedAt(),
                    s.finishedAt());
        }
    }

    /**
     * One event of the log. {@code id} is null for a routine step read from its run's own
     * columns (created by the scheduler, claimed, started, succeeded): it is no row of the log.
     */
    public record EventView(
            Long id,
            Long instanceId,
            String taskName,
            String type,
            RunState from,
            RunState to,
            Integer attempt,
            String actor,
            String nodeId,
            Instant at,
            String message,
            Map<String, Object> data) {
        /** The event with the values of secrets masked in its message. */
        public static EventView of(EventRow e, SecretMask mask) {
            EventView v = of(e);
            return new EventView(
                    v.id(),
                    v.instanceId(),
                    v.taskName(),
                    v.type(),
                    v.from(),
                    v.to(),
                    v.attempt(),
                    v.actor(),
                    v.nodeId(),
                    v.at(),
                    mask.apply(v.message()),
                    v.data());
        }

        public static EventView of(EventRow e) {
            return new EventView(
                    e.id() == 0 ? null : e.id(),
                    e.instanceId(),
                    e.taskName(),
                    e.type().name(),
                    e.from(),
                    e.to(),
                    e.attempt(),
                    e.actor(),
                    e.nodeId(),
                    e.at(),
                    e.message(),
                    e.data());
        }
    }

    public record LogView(
            int attempt,
            String stream,
            Instant at,
            String text,
            @JsonInclude(JsonInclude.Include.NON_NULL) Integer shard) {
        /** A chunk of output with the values of secrets masked: output stored before a secret existed holds it as it was. */
        public static LogView of(LogLine l, SecretMask mask) {
            return new LogView(l.attempt(), l.stream(), l.at(), mask.apply(l.text()), l.shard());
        }
    }

    /** @param labels the executor's environment labels (tasks naming {@code environment} labels need all of theirs) */
    public record ExecutorView(
            String id,
            List<String> groups,
            String host,
            Long pid,
            String version,
            Instant startedAt,
            Instant lastSeenAt,
            boolean online,
            List<String> labels) {
        public static ExecutorView of(ExecutorRow e, boolean online) {
            return of(e, online, List.of());
        }

        public static ExecutorView of(ExecutorRow e, boolean online, List<String> labels) {
            return new ExecutorView(
                    e.id(), e.groups(), e.host(), e.pid(), e.version(), e.startedAt(), e.lastSeenAt(), online, labels);
        }
    }

    /** A trigger's answer; {@code duplicate}: the run an earlier request with the same idempotency key made. */
    public record Triggered(long instanceId, String taskName, boolean duplicate) {}

    /** A retry or re-run: the new run and the one it repeats. */
    public record Repeated(long instanceId, long parentId) {}

    public record Health(
            String status,
            String nodeId,
            Instant nodeTime,
            Instant dbTime,
            Long clockOffsetMillis,
            long loopErrors,
            @JsonInclude(JsonInclude.Include.NON_NULL) String error) {}

    public record CronNext(List<Instant> next) {}
}
