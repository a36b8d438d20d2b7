package dev.ax.scheduler;

import dev.ax.domain.run.Cause;
import dev.ax.domain.run.EventType;
import dev.ax.domain.run.FollowUpState;
import dev.ax.domain.run.RunState;
import dev.ax.domain.task.FollowUp;
import dev.ax.domain.task.TaskDefinition;
import dev.ax.domain.task.TaskDefinitionCodec;
import dev.ax.domain.task.ValidationException;
import dev.ax.domain.template.Target;
import dev.ax.domain.template.TemplateContext;
import dev.ax.domain.template.Templates;
import dev.ax.store.FollowUpStore.FollowUpRow;
import dev.ax.store.Json;
import dev.ax.store.NewEvent;
import dev.ax.store.NewRun;
import dev.ax.store.RunRow;
import dev.ax.store.Store;
import dev.ax.store.TaskRow;
import dev.ax.store.Tx;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Failure follow-ups ({@code policy.onFailedActions}): enqueued in the transaction that fails a
 * run for good, carried out by the housekeeping loop of any node. Triggering a compensation task
 * and pausing tasks happen in the same transaction that marks the follow-up done, so each
 * happens once; a webhook is sent outside any transaction and retried, so it is sent at least
 * once (the body carries the run id to dedupe on).
 */
final class FollowUps {
    private static final Logger LOG = LoggerFactory.getLogger(FollowUps.class);
    static final int BATCH = 50;
    static final int MAX_WEBHOOK_ATTEMPTS = 5;
    /** A claimed follow-up comes due again after this if its node dies while working on it. */
    static final long CLAIM_MILLIS = 60_000;

    private final NodeContext ctx;
    private final ConcurrencyGate gate;
    private final WebhookSender webhooks;

    FollowUps(NodeContext ctx, ConcurrencyGate gate, WebhookSender webhooks) {
        this.ctx = ctx;
        this.gate = gate;
        this.webhooks = webhooks;
    }

    /** Called with the failing transaction: the follow-ups become facts together with the failure. */
    void enqueue(Tx tx, RunRow run, TaskDefinition def) {
        List<FollowUp> list = def.policy().onFailed();
        for (int i = 0; i < list.size(); i++) {
            ctx.store()
                    .followUps()
                    .enqueue(tx, run.id(), run.taskId(), i, TaskDefinitionCodec.followUpJson(list.get(i)));
        }
    }

    /** Works off due follow-ups; returns how many were finished. */
    int tick() {
        Store store = ctx.store();
        List<FollowUpRow> due = store.tx(tx -> {
            List<FollowUpRow> rows = store.followUps().lockDue(tx, BATCH);
            rows.forEach(r -> store.followUps().postpone(tx, r.id(), CLAIM_MILLIS, r.lastError()));
            return rows;
        });
        int done = 0;
        for (FollowUpRow row : due) {
            try {
                done += carryOut(row) ? 1 : 0;
            } catch (RuntimeException e) {
                LOG.warn(
                        "follow-up {} of run {} failed; will retry: {}",
                        row.position(),
                        row.instanceId(),
                        e.toString());
            }
        }
        return done;
    }

    private boolean carryOut(FollowUpRow row) {
        Store store = ctx.store();
        RunRow failed = store.tx(tx -> store.runs().find(tx, row.instanceId()).orElseThrow());
        FollowUp followUp = store.tx(tx -> ctx.store().tasks().definition(tx, failed.taskId(), failed.taskVersion()))
                .policy()
                .onFailed()
                .get(row.position());
        return switch (followUp) {
            case FollowUp.TriggerTask t -> once(row, failed, tx -> compensate(tx, failed, t));
            case FollowUp.PauseTasks p -> once(row, failed, tx -> pause(tx, failed, p));
            case FollowUp.Webhook w -> deliver(row, failed, w);
        };
    }

    /** What a follow-up did: its event says so, and {@code ok} decides DONE or FAILED. */
    private record Outcome(boolean ok, String message) {}

    /**
     * Marks the follow-up finished and carries it out in one transaction: if another node got
     * there first, the conditional finish fails and nothing is done twice.
     */
    private boolean once(FollowUpRow row, RunRow failed, Function<Tx, Outcome> work) {
        Store store = ctx.store();
        return store.tx(tx -> {
            Outcome outcome;
            try {
                outcome = work.apply(tx);
            } catch (IllegalArgumentException e) {
                outcome = new Outcome(false, e.getMessage());
            }
            if (!store.followUps()
                    .finish(
                            tx,
                            row.id(),
                            outcome.ok() ? FollowUpState.DONE : FollowUpState.FAILED,
                            outcome.ok() ? null : outcome.message())) {
                throw new ConflictException("follow-up " + row.id() + " was carried out by another node");
            }
            note(
                    tx,
                    failed,
                    outcome.ok() ? EventType.FOLLOW_UP_DONE : EventType.FOLLOW_UP_FAILED,
                    outcome.message(),
                    row);
            return true;
        });
    }

    private Outcome compensate(Tx tx, RunRow failed, FollowUp.TriggerTask t) {
        Store store = ctx.store();
        TaskRow target = store.tasks().lock(tx, t.taskName()).orElse(null);
        if (target == null) {
            return new Outcome(false, "compensation task " + t.taskName() + " does not exist");
        }
        TemplateContext tc = new TemplateContext(
                failed.taskName(),
                failed.scheduledAt(),
                ctx.store()
                        .tasks()
                        .definition(tx, failed.taskId(), failed.taskVersion())
                        .trigger()
                        .timezone(),
                failed.params(),
                failed.id(),
                failed.attempt(),
                failed.requestId());
        Map<String, Object> rendered = new LinkedHashMap<>();
        Map<String, Object> params;
        TaskDefinition def = target.definition();
        try {
            t.params().forEach((k, v) -> rendered.put(k, Templates.render(v, Target.KEY, tc)));
            params = Tasks.checkParams(def, rendered, tx.now());
        } catch (ValidationException e) {
            return new Outcome(
                    false, "compensation task " + t.taskName() + " refused its parameters: " + e.getMessage());
        } catch (IllegalArgumentException e) {
            return new Outcome(false, "the compensation's parameters did not render: " + e.getMessage());
        }
        long root = failed.rootId() != null ? failed.rootId() : failed.id();
        return gate.admit(
                        tx,
                        target,
                        new NewRun(
                                target.id(),
                                target.name(),
                                target.version(),
                                Cause.COMPENSATION,
                                Cause.COMPENSATION.wireName() + ":" + UUID.randomUUID(),
                                tx.now(),
                                params,
                                RunState.READY,
                                def.policy().maxAttempts(),
                                def.group(),
                                "follow-up:" + failed.id(),
                                ctx.nodeId(),
                                failed.id(),
                                root,
                                "compensation for failed run " + failed.id() + " of " + failed.taskName()))
                .map(id -> {
                    ctx.signals().workAvailable();
                    return new Outcome(true, "triggered compensation task " + t.taskName() + " as run " + id);
                })
                .orElse(new Outcome(false, "compensation task " + t.taskName() + " was not triggered"));
    }

    private Outcome pause(Tx tx, RunRow failed, FollowUp.PauseTasks p) {
        Store store = ctx.store();
        List<String> paused = new ArrayList<>();
        List<String> missing = new ArrayList<>();
        String actor = "follow-up:" + failed.id();
        for (String name : p.tasks()) {
            TaskRow task = store.tasks().lock(tx, name).orElse(null);
            if (task == null) {
                missing.add(name);
                continue;
            }
            if (!task.paused()) {
                TaskRow t = store.tasks().setEnabled(tx, task, false, actor);
                store.events()
                        .append(
                                tx,
                                new NewEvent(
                                        t.id(),
                                        t.name(),
                                        EventType.TASK_PAUSED,
                                        actor,
                                        ctx.nodeId(),
                                        "paused because run " + failed.id() + " of " + failed.taskName() + " failed",
                                        Map.of("failedRun", failed.id())));
            }
            paused.add(name);
        }
        ctx.signals().tasksChanged();
        return new Outcome(
                missing.isEmpty(),
                "paused " + String.join(", ", paused)
                        + (missing.isEmpty() ? "" : " (no such task: " + String.join(", ", missing) + ")"));
    }

    private boolean deliver(FollowUpRow row, RunRow failed, FollowUp.Webhook w) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("event", "run.failed");
        body.put("taskName", failed.taskName());
        body.put("instanceId", failed.id());
        body.put("attempt", failed.attempt());
        body.put("state", failed.state().name());
        body.put(
                "failureKind",
                failed.failureKind() == null ? null : failed.failureKind().name());
        body.put("exitCode", failed.exitCode());
        body.put("message", failed.message());
        body.put("scheduledAt", String.valueOf(failed.scheduledAt()));
        body.put("finishedAt", String.valueOf(failed.finishedAt()));
        body.put("requestId", failed.requestId());
        WebhookSender.Result result = webhooks.send(w.url(), w.headers(), Json.write(body));
        int attempts = row.attempts() + 1;
        return ctx.store().tx(tx -> {
            if (result.delivered()) {
                if (ctx.store().followUps().finish(tx, row.id(), FollowUpState.DONE, null)) {
                    note(
                            tx,
                            failed,
                            EventType.FOLLOW_UP_DONE,
                            "webhook " + w.url() + " answered " + result.detail(),
                            row);
                }
                return true;
            }
            if (attempts >= MAX_WEBHOOK_ATTEMPTS) {
                if (ctx.store().followUps().finish(tx, row.id(), FollowUpState.FAILED, result.detail())) {
                    note(
                            tx,
                            failed,
                            EventType.FOLLOW_UP_FAILED,
                            "webhook " + w.url() + " failed " + attempts + " times: " + result.detail(),
                            row);
                }
                return true;
            }
            ctx.store().followUps().postpone(tx, row.id(), 1000L << attempts, result.detail());
            return false;
        });
    }

    private void note(Tx tx, RunRow failed, EventType type, String message, FollowUpRow row) {
        ctx.store()
                .events()
                .appendForRun(
                        tx,
                        failed.id(),
                        type,
                        null,
                        null,
                        ctx.schedulerActor(),
                        ctx.nodeId(),
                        message,
                        Map.of("followUp", row.position(), "action", row.action()));
    }
}
