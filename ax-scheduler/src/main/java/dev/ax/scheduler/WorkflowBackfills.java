package dev.ax.scheduler;

import dev.ax.domain.policy.BackfillSlots;
import dev.ax.domain.schedule.Schedules;
import dev.ax.domain.task.BackfillRequest;
import dev.ax.domain.task.ValidationException;
import dev.ax.domain.workflow.WorkflowBackfillState;
import dev.ax.domain.workflow.WorkflowDefinition;
import dev.ax.store.Store;
import dev.ax.store.Tx;
import dev.ax.store.WorkflowRunStore.WorkflowRunRow;
import dev.ax.store.WorkflowStore.BackfillRow;
import dev.ax.store.WorkflowStore.WorkflowRow;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Backfill of a workflow: one workflow run per slot of the workflow's trigger in a date range
 * (per business date for a daily one), at most {@code parallelism} runs RUNNING at once, oldest
 * first. A run uses the slot's own fire key — the one the live schedule would use — so a slot
 * has one run whoever made it, and repeating a backfill creates nothing new. The slots are the
 * task backfill's ({@link BackfillSlots}).
 */
public final class WorkflowBackfills {
    private final NodeContext ctx;
    private final WorkflowEngine engine;

    WorkflowBackfills(NodeContext ctx, WorkflowEngine engine) {
        this.ctx = ctx;
        this.engine = engine;
    }

    /** One slot: {@code run}, or {@code skip} because the slot has a run already. */
    public record SlotPlan(Instant slot, LocalDate date, String action, Long existingRunId) {}

    /** @param backfillId null for a dry run */
    public record Started(Long backfillId, String workflow, int slots, List<SlotPlan> plan) {}

    public record Progress(BackfillRow backfill, List<WorkflowRunRow> runs) {}

    public Started start(String name, Map<String, Object> body, String actor) {
        BackfillRequest request = BackfillRequest.parse(body);
        if (!request.reprocess().equals("none")) {
            throw new ValidationException(
                    "reprocess",
                    "a workflow backfill runs only slots without a run; rerun a failed run from its node instead");
        }
        Store store = ctx.store();
        return store.tx(tx -> {
            WorkflowRow wf = store.workflows()
                    .find(tx, name)
                    .orElseThrow(() -> new NotFoundException("no workflow named " + name));
            WorkflowDefinition def = WorkflowEngine.definition(wf.definition());
            if (!def.trigger().isScheduled()) {
                throw new ValidationException(
                        "name",
                        "workflow " + name + " has no schedule ("
                                + def.trigger().type() + " trigger); trigger it instead");
            }
            List<Instant> slots;
            try {
                slots = BackfillSlots.of(
                        Schedules.of(def.trigger()),
                        def.trigger().timezone(),
                        request.from(),
                        request.to(),
                        request.newestFirst());
            } catch (IllegalArgumentException e) {
                throw new ValidationException("to", e.getMessage());
            }
            engine.checkParams(tx, def, request.params());
            List<SlotPlan> plan = new ArrayList<>();
            for (Instant slot : slots) {
                Long existing = store.workflowRuns()
                        .findBySlot(tx, wf.id(), Firing.fireKey(slot))
                        .map(WorkflowRunRow::id)
                        .orElse(null);
                plan.add(new SlotPlan(
                        slot,
                        LocalDate.ofInstant(slot, def.trigger().timezone()),
                        existing == null ? "run" : "skip",
                        existing));
            }
            if (request.dryRun()) {
                return new Started(null, name, slots.size(), plan);
            }
            long id = store.workflows()
                    .insertBackfill(
                            tx,
                            wf.id(),
                            name,
                            BackfillSlots.start(def.trigger().timezone(), request.from()),
                            BackfillSlots.end(def.trigger().timezone(), request.to()),
                            request.parallelism(),
                            request.newestFirst(),
                            request.params(),
                            slots.size(),
                            actor);
            ctx.signals().workflowsChanged();
            return new Started(id, name, slots.size(), plan.subList(0, Math.min(plan.size(), 100)));
        });
    }

    public Progress progress(long id) {
        Store store = ctx.store();
        return store.tx(tx -> new Progress(
                store.workflows()
                        .findBackfill(tx, id)
                        .orElseThrow(() -> new NotFoundException("no workflow backfill " + id)),
                store.workflowRuns().ofBackfill(tx, id)));
    }

    /** Creates the next runs of every running backfill, up to its parallelism; returns how many. */
    int tick() {
        Store store = ctx.store();
        int created = 0;
        for (long id : store.tx(tx -> store.workflows().runningBackfills(tx, WorkflowEngine.BATCH))) {
            created += store.tx(tx -> advance(tx, id));
        }
        return created;
    }

    private int advance(Tx tx, long id) {
        Store store = ctx.store();
        BackfillRow b = store.workflows().lockRunningBackfill(tx, id).orElse(null);
        if (b == null) {
            return 0;
        }
        WorkflowRow wf = store.workflows().findById(tx, b.workflowId()).orElse(null);
        if (wf == null) {
            store.workflows().setBackfillState(tx, id, WorkflowBackfillState.RUNNING, WorkflowBackfillState.CANCELED);
            return 0;
        }
        int active = store.workflowRuns().countRunningOfBackfill(tx, id);
        int index = b.nextIndex();
        if (index >= b.total()) {
            if (active == 0) {
                store.workflows().setBackfillState(tx, id, WorkflowBackfillState.RUNNING, WorkflowBackfillState.DONE);
            }
            return 0;
        }
        WorkflowDefinition def = WorkflowEngine.definition(wf.definition());
        List<Instant> slots = BackfillSlots.between(Schedules.of(def.trigger()), b.from(), b.to(), b.newestFirst());
        int free = b.parallelism() - active;
        int created = 0;
        while (free > 0 && index < slots.size()) {
            Instant slot = slots.get(index++);
            if (engine.createRun(tx, wf, "backfill", Firing.fireKey(slot), slot, b.params(), id, b.createdBy())
                    .isPresent()) {
                created++;
                // A run whose nodes all ended at once (skipped by idempotency keys) takes no place.
                free = b.parallelism() - store.workflowRuns().countRunningOfBackfill(tx, id);
            }
        }
        store.workflows().advanceBackfill(tx, id, index);
        return created;
    }
}
