package dev.ax.scheduler;

import dev.ax.domain.policy.CanaryRouting;
import dev.ax.domain.policy.CanaryVerdict;
import dev.ax.domain.run.Cause;
import dev.ax.domain.run.EventType;
import dev.ax.domain.run.RunState;
import dev.ax.domain.task.CanaryState;
import dev.ax.domain.task.ParsedTask;
import dev.ax.domain.task.TaskDefinition;
import dev.ax.domain.task.TaskDefinitionCodec;
import dev.ax.domain.task.ValidationException;
import dev.ax.store.CanaryStore;
import dev.ax.store.CanaryStore.CanaryRow;
import dev.ax.store.Move;
import dev.ax.store.NewEvent;
import dev.ax.store.NewRun;
import dev.ax.store.RunRow;
import dev.ax.store.Store;
import dev.ax.store.TaskRow;
import dev.ax.store.Tx;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * Canary rollout of a task change, its whole life in one file (longer than most: routing, the
 * verdict after each run, promotion and rollback share its rules) ({@code PUT /api/tasks/{name}?rollout=canary}). The new definition
 * is written to the task's version history as version N+1 but the task stays on its stable version;
 * a share of new runs is routed to the canary (by fire key with a percentage, so a slot always maps
 * to one version; or the next N runs), each run recording its version. {@link #promote} makes the
 * canary current (a new version, change PROMOTE), {@link #rollback} drops it, and after every ended
 * run {@link #afterRun} asks {@link CanaryVerdict} whether the canary fails enough worse than the
 * stable version to be rolled back automatically (event CANARY_ROLLED_BACK, which ax-alerts alerts).
 *
 * <p>The trigger belongs to the task, not to a version: a canary that changes it is refused, and the
 * stable trigger keeps firing. So do the declared parameters, which a run is checked against before it is routed. Admission (concurrency, approval, idempotency key) follows the stable
 * definition; the action, timeout, retries, follow-ups and environment of a run routed to the
 * canary are the canary's. Every change here happens under the task's row lock.
 */
public final class Canaries {
    /** The causes of new runs that a rollout routes; retries and re-runs "as it was" keep their version. */
    static final Set<Cause> ROUTED = Set.of(
            Cause.CRON,
            Cause.INTERVAL,
            Cause.EVENT,
            Cause.MANUAL,
            Cause.BACKFILL,
            Cause.DEPENDENCY,
            Cause.COMPENSATION);

    private final NodeContext ctx;

    Canaries(NodeContext ctx) {
        this.ctx = ctx;
    }

    /**
     * The share of a rollout: exactly one of {@code percent} (1..99) and {@code runs} (at least 1);
     * {@code marginPoints} (0..100) and {@code minRuns} (at least 1) for the automatic rollback.
     */
    public record Rollout(Integer percent, Integer runs, int marginPoints, int minRuns) {
        public Rollout {
            if (percent == null && runs == null) {
                throw new ValidationException(
                        "percent", "a canary needs a share: percent (1..99) or runs (at least 1)");
            }
            if (percent != null && runs != null) {
                throw new ValidationException("runs", "give either percent or runs, not both");
            }
            if (percent != null && (percent < 1 || percent > 99)) {
                throw new ValidationException("percent", "must be between 1 and 99, was " + percent);
            }
            if (runs != null && runs < 1) {
                throw new ValidationException("runs", "must be at least 1, was " + runs);
            }
            if (marginPoints < 0 || marginPoints > 100) {
                throw new ValidationException(
                        "margin", "must be between 0 and 100 percentage points, was " + marginPoints);
            }
            if (minRuns < 1) {
                throw new ValidationException("minRuns", "must be at least 1, was " + minRuns);
            }
        }

        public static Rollout of(Integer percent, Integer runs, Integer marginPoints, Integer minRuns) {
            return new Rollout(
                    percent,
                    runs,
                    marginPoints == null ? CanaryVerdict.DEFAULT_MARGIN_POINTS : marginPoints,
                    minRuns == null ? CanaryVerdict.DEFAULT_MIN_RUNS : minRuns);
        }
    }

    /** A rollout with the outcomes of both versions since it started. */
    public record Status(
            long id,
            String state,
            int stableVersion,
            int canaryVersion,
            Integer percent,
            Integer runs,
            long runsSoFar,
            long stableOk,
            long stableFailed,
            long canaryOk,
            long canaryFailed,
            int marginPoints,
            int minRuns,
            Instant startedAt,
            String startedBy,
            Instant endedAt,
            String endedBy,
            String endReason) {}

    /** Starts a canary of {@code json} for the task {@code name}; returns the rollout and the warnings of the definition. */
    public record Started(TaskRow task, Status canary, List<String> warnings) {}

    public Started start(String name, Object json, Rollout rollout, String actor) {
        ParsedTask parsed = TaskDefinitionCodec.parse(json, ctx.config().channels());
        TaskDefinition def = parsed.definition();
        Tasks.checkIdempotencyKey(def);
        if (!def.taskName().equals(name)) {
            throw new ValidationException("taskName", "must be '" + name + "' (the name in the URL)");
        }
        Store store = ctx.store();
        Started started = store.tx(tx -> {
            TaskRow task =
                    store.tasks().lock(tx, name).orElseThrow(() -> new NotFoundException("no task named " + name));
            Optional<CanaryRow> running = store.canaries().active(tx, task.id());
            if (running.isPresent()) {
                throw new ConflictException("task " + name + " already has a canary in progress (version "
                        + running.get().canaryVersion()
                        + ", started " + running.get().startedAt() + " by "
                        + running.get().startedBy()
                        + "); promote it or roll it back first");
            }
            if (!Objects.equals(task.definition().trigger(), def.trigger())) {
                throw new ValidationException(
                        "trigger",
                        "a canary cannot change the trigger (the task's schedule fires both versions);"
                                + " change the trigger with a plain update");
            }
            if (!Objects.equals(task.definition().team(), def.team())) {
                throw new ValidationException(
                        "team",
                        "a canary cannot move the task to another team (who may act on it would differ"
                                + " between its runs); change the team with a plain update");
            }
            if (!Objects.equals(task.definition().params(), def.params())) {
                throw new ValidationException(
                        "params",
                        "a canary cannot change the declared parameters (a run's parameters are"
                                + " checked before it is routed to a version); change them with a plain update");
            }
            if (!Objects.equals(task.definition().dependencies(), def.dependencies())) {
                // The dependency edges belong to the task, not to a version: both versions' runs wait the same way.
                throw new ValidationException(
                        "dependsOn",
                        "a canary cannot change dependsOn or dependencyPolicy;" + " change them with a plain update");
            }
            if (task.definition().equals(def)) {
                throw new ValidationException(
                        "",
                        "the definition is the same as the current version " + task.version()
                                + "; there is nothing to roll out");
            }
            SecretChecks.requireSet(tx, store, def);
            int version = store.tasks().appendCanary(tx, task, def, actor);
            long id = store.canaries()
                    .insert(
                            tx,
                            task.id(),
                            task.name(),
                            task.version(),
                            version,
                            rollout.percent(),
                            rollout.runs(),
                            rollout.marginPoints(),
                            rollout.minRuns(),
                            actor);
            Map<String, Object> data = new LinkedHashMap<>();
            data.put("canaryVersion", version);
            data.put("stableVersion", task.version());
            data.put(
                    rollout.percent() != null ? "percent" : "runs",
                    rollout.percent() != null ? rollout.percent() : rollout.runs());
            data.put("margin", rollout.marginPoints());
            data.put("minRuns", rollout.minRuns());
            store.events()
                    .append(
                            tx,
                            new NewEvent(
                                    task.id(),
                                    task.name(),
                                    EventType.CANARY_STARTED,
                                    actor,
                                    ctx.nodeId(),
                                    "canary version " + version + " gets " + share(rollout.percent(), rollout.runs())
                                            + " of new runs; version " + task.version() + " stays stable",
                                    data));
            return new Started(
                    task, status(tx, store.canaries().active(tx, task.id()).orElseThrow()), parsed.warnings());
        });
        return started;
    }

    /** The canary becomes the task's current definition, as a new version (change PROMOTE). */
    public TaskRow promote(String name, String actor) {
        Store store = ctx.store();
        TaskRow row = store.tx(tx -> {
            TaskRow task =
                    store.tasks().lock(tx, name).orElseThrow(() -> new NotFoundException("no task named " + name));
            CanaryRow c = activeOrConflict(tx, task, "promote");
            TaskDefinition canary = ctx.store().tasks().definition(tx, task.id(), c.canaryVersion());
            TaskRow t = store.tasks().update(tx, task, canary, task.nextFireAt(), actor, "PROMOTE");
            store.canaries().end(tx, c.id(), CanaryState.PROMOTED, actor, "promoted as version " + t.version());
            store.events()
                    .append(
                            tx,
                            new NewEvent(
                                    t.id(),
                                    t.name(),
                                    EventType.CANARY_PROMOTED,
                                    actor,
                                    ctx.nodeId(),
                                    "canary version " + c.canaryVersion() + " promoted: now the current version "
                                            + t.version(),
                                    Map.of(
                                            "canaryVersion",
                                            c.canaryVersion(),
                                            "stableVersion",
                                            c.stableVersion(),
                                            "version",
                                            t.version())));
            return t;
        });
        ctx.signals().tasksChanged();
        return row;
    }

    /** Drops the canary by hand: new runs use the stable version again; the canary's runs that have not started are canceled. */
    public TaskRow rollback(String name, String actor) {
        Store store = ctx.store();
        return store.tx(tx -> {
            TaskRow task =
                    store.tasks().lock(tx, name).orElseThrow(() -> new NotFoundException("no task named " + name));
            CanaryRow c = activeOrConflict(tx, task, "roll back");
            end(tx, task, c, actor, "rolled back by " + actor, false, Map.of());
            return task;
        });
    }

    /**
     * Routes a new run of a task whose row the caller has locked: the run itself, or the same run on
     * the canary version (with the canary's group and attempts). Called by the concurrency gate for
     * every admission, so firing, triggers, backfills and follow-ups all route the same way.
     */
    NewRun route(Tx tx, TaskRow task, NewRun run) {
        if (!task.canary() || !ROUTED.contains(run.cause()) || run.taskVersion() != task.version()) {
            return run;
        }
        Optional<CanaryRow> active = ctx.store().canaries().active(tx, task.id());
        if (active.isEmpty()) {
            return run;
        }
        CanaryRow c = active.get();
        boolean toCanary = c.percent() != null
                ? CanaryRouting.pick(routingKey(run), c.percent())
                : CanaryRouting.pickByCount(
                        (int) ctx.store().canaries().runsOf(tx, task.id(), c.canaryVersion()), c.runs());
        if (!toCanary) {
            return run;
        }
        TaskDefinition def = ctx.store().tasks().definition(tx, task.id(), c.canaryVersion());
        String note = "canary version " + c.canaryVersion() + " (" + share(c.percent(), c.runs()) + ")";
        return new NewRun(
                run.taskId(),
                run.taskName(),
                c.canaryVersion(),
                run.cause(),
                run.fireKey(),
                run.scheduledAt(),
                run.params(),
                run.state(),
                def.policy().maxAttempts(),
                def.group(),
                run.actor(),
                run.nodeId(),
                run.parentId(),
                run.rootId(),
                run.message() == null ? note : run.message() + "; " + note);
    }

    /**
     * The key a run is routed by: its slot for scheduled and backfill runs (a backfill that
     * reprocesses a slot has a fire key of its own, yet the same slot maps to the same version),
     * the fire key otherwise.
     */
    static String routingKey(NewRun run) {
        return run.cause().isScheduled() || run.cause() == Cause.BACKFILL
                ? Firing.fireKey(run.scheduledAt())
                : run.fireKey();
    }

    /**
     * After a run of a task under a canary ended (the caller holds the task's row lock): rolls the
     * canary back when {@link CanaryVerdict} says its failure rate exceeds the stable one's by the margin.
     */
    /** As below, for a caller holding the task's row: a task without an active canary costs nothing. */
    void afterRun(Tx tx, Optional<TaskRow> task, RunRow run) {
        if (task.isPresent() && !task.get().canary()) {
            return;
        }
        afterRun(tx, run);
    }

    void afterRun(Tx tx, RunRow run) {
        if (run.cause() == Cause.TEST || run.cause() == Cause.PREVIEW) {
            return;
        }
        Optional<CanaryRow> active = ctx.store().canaries().active(tx, run.taskId());
        if (active.isEmpty()) {
            return;
        }
        CanaryRow c = active.get();
        Status s = status(tx, c);
        CanaryVerdict v = CanaryVerdict.decide(
                s.canaryOk(), s.canaryFailed(), s.stableOk(), s.stableFailed(), c.marginPoints(), c.minRuns());
        if (!v.rollback()) {
            return;
        }
        TaskRow task = ctx.store().tasks().findById(tx, run.taskId()).orElse(null);
        if (task == null) {
            return;
        }
        Map<String, Object> numbers = new LinkedHashMap<>();
        numbers.put("canaryOk", s.canaryOk());
        numbers.put("canaryFailed", s.canaryFailed());
        numbers.put("stableOk", s.stableOk());
        numbers.put("stableFailed", s.stableFailed());
        numbers.put("canaryFailurePercent", Math.round(v.canaryFailurePercent()));
        numbers.put("stableFailurePercent", Math.round(v.stableFailurePercent()));
        numbers.put("lastInstanceId", run.id());
        end(tx, task, c, ctx.schedulerActor(), "automatic " + v.reason(), true, numbers);
    }

    /** A deleted task's canary ends with it (its waiting runs were canceled with the task's). */
    void taskDeleted(Tx tx, TaskRow task, String actor) {
        ctx.store()
                .canaries()
                .active(tx, task.id())
                .ifPresent(c -> ctx.store()
                        .canaries()
                        .end(tx, c.id(), CanaryState.ROLLED_BACK, actor, "task " + task.name() + " was deleted"));
    }

    /** While a canary is in progress the task's definition is not edited otherwise: one change at a time. */
    void refuseEdit(Tx tx, TaskRow task) {
        ctx.store().canaries().active(tx, task.id()).ifPresent(c -> {
            throw new ConflictException("task " + task.name() + " has a canary in progress (version "
                    + c.canaryVersion() + "); promote it (POST /api/tasks/" + task.name()
                    + "/canary/promote) or roll it back (…/canary/rollback) first");
        });
    }

    /** The rollout in progress of a task, with its counts; empty when there is none. */
    public Optional<Status> active(Tx tx, long taskId) {
        return ctx.store().canaries().active(tx, taskId).map(c -> status(tx, c));
    }

    /** The rollouts of a task, newest first. */
    public List<Status> history(Tx tx, long taskId, int limit) {
        return ctx.store().canaries().history(tx, taskId, limit).stream()
                .map(c -> status(tx, c))
                .toList();
    }

    private void end(
            Tx tx,
            TaskRow task,
            CanaryRow c,
            String actor,
            String reason,
            boolean automatic,
            Map<String, Object> numbers) {
        Store store = ctx.store();
        if (!store.canaries().end(tx, c.id(), CanaryState.ROLLED_BACK, actor, reason)) {
            return;
        }
        // Canary runs that have not started would still run the version just dropped.
        int canceled = 0;
        for (RunRow waiting : store.runs()
                .ofTaskInStates(
                        tx,
                        task.id(),
                        List.of(RunState.READY, RunState.BLOCKED, RunState.RETRYING, RunState.WAITING_APPROVAL),
                        Integer.MAX_VALUE)) {
            if (waiting.taskVersion() == c.canaryVersion()
                    && store.runs()
                            .move(
                                    tx,
                                    Move.of(waiting.id(), waiting.state(), RunState.CANCELED)
                                            .finished()
                                            .event(
                                                    EventType.CANCELED,
                                                    actor,
                                                    ctx.nodeId(),
                                                    "canary version " + c.canaryVersion() + " was rolled back"))) {
                canceled++;
            }
        }
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("automatic", automatic);
        data.put("canaryVersion", c.canaryVersion());
        data.put("stableVersion", c.stableVersion());
        data.put("reason", reason);
        data.put("canceledRuns", canceled);
        data.putAll(numbers);
        store.events()
                .append(
                        tx,
                        new NewEvent(
                                task.id(),
                                task.name(),
                                EventType.CANARY_ROLLED_BACK,
                                actor,
                                ctx.nodeId(),
                                "canary version " + c.canaryVersion() + " rolled back; new runs use version "
                                        + task.version() + " (" + reason + ")",
                                data));
    }

    private CanaryRow activeOrConflict(Tx tx, TaskRow task, String what) {
        return ctx.store()
                .canaries()
                .active(tx, task.id())
                .orElseThrow(
                        () -> new ConflictException("task " + task.name() + " has no canary in progress to " + what));
    }

    private Status status(Tx tx, CanaryRow c) {
        CanaryStore store = ctx.store().canaries();
        CanaryStore.Outcomes stable = store.stableOutcomes(tx, c.taskId(), c.canaryVersion(), c.startedAt());
        CanaryStore.Outcomes canary = store.canaryOutcomes(tx, c.taskId(), c.canaryVersion(), c.startedAt());
        return new Status(
                c.id(),
                c.state().name(),
                c.stableVersion(),
                c.canaryVersion(),
                c.percent(),
                c.runs(),
                store.runsOf(tx, c.taskId(), c.canaryVersion()),
                stable.ok(),
                stable.failed(),
                canary.ok(),
                canary.failed(),
                c.marginPoints(),
                c.minRuns(),
                c.startedAt(),
                c.startedBy(),
                c.endedAt(),
                c.endedBy(),
                c.endReason());
    }

    private static String share(Integer percent, Integer runs) {
        return percent != null ? percent + " %" : "the next " + runs + " runs";
    }
}
