package dev.ax.scheduler;

import dev.ax.domain.run.Cause;
import dev.ax.domain.run.RunState;
import dev.ax.domain.task.ParsedTask;
import dev.ax.domain.task.TaskDefinition;
import dev.ax.domain.task.TaskDefinitionCodec;
import dev.ax.domain.task.ValidationException;
import dev.ax.store.NewRun;
import dev.ax.store.Store;
import dev.ax.store.TaskRow;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * "Paste the command, set the time, test once": runs a draft definition once, now,
 * before it is saved ({@code POST /api/tasks/{name}/test-run}). The task may exist or not; nothing
 * about it changes — no version, no next slot. The draft is stored under a negative version of the
 * task (of task id 0 when it is not saved yet; see {@code TaskStore#appendDraft}), so the run records
 * exactly what it ran and executors render it like any version; it leaves the history and the version
 * count alone.
 *
 * <p>The run has cause {@code TEST}: it takes no concurrency slot, waits for no approval, and a failure
 * triggers no follow-up and no alert; the draft's own retry policy does apply to its attempts (what is
 * tested is what would run), and its {@code environment} picks the executors like any run's.
 */
public final class TestRuns {
    private final NodeContext ctx;

    TestRuns(NodeContext ctx) {
        this.ctx = ctx;
    }

    /** The run of a draft, with the version its definition was stored under and the draft's warnings. */
    public record Started(
            long instanceId, String taskName, int draftVersion, boolean taskExists, List<String> warnings) {}

    public Started run(String name, Object draftJson, Map<String, Object> params, String actor) {
        ParsedTask parsed = TaskDefinitionCodec.parse(draftJson, ctx.config().channels());
        TaskDefinition draft = parsed.definition();
        if (!draft.taskName().equals(name)) {
            throw new ValidationException("taskName", "must be '" + name + "' (the name in the URL)");
        }
        Tasks.checkIdempotencyKey(draft);
        Store store = ctx.store();
        Started started;
        // Draft versions are numbered below the lowest one of the task: one writer at a time, in this JVM and across
        // nodes.
        synchronized (TestRuns.class) {
            started = store.tx(tx -> {
                Map<String, Object> checked = Tasks.checkParams(draft, params, tx.now());
                SecretChecks.requireSet(tx, store, draft);
                TaskRow task = store.tasks().find(tx, name).orElse(null);
                long taskId = task == null ? 0 : task.id();
                tx.lockKey("ax-draft:" + taskId);
                int version = store.tasks().appendDraft(tx, taskId, draft, actor);
                long id = store.runs()
                        .create(
                                tx,
                                new NewRun(
                                        taskId,
                                        name,
                                        version,
                                        Cause.TEST,
                                        Cause.TEST.wireName() + ":" + UUID.randomUUID(),
                                        tx.now(),
                                        checked,
                                        RunState.READY,
                                        draft.policy().maxAttempts(),
                                        draft.group(),
                                        actor,
                                        ctx.nodeId(),
                                        null,
                                        null,
                                        "test run of a draft by " + actor
                                                + (task == null
                                                        ? " (task not saved yet)"
                                                        : " (saved version " + task.version() + " unchanged)")))
                        .orElseThrow();
                return new Started(id, name, version, task != null, parsed.warnings());
            });
        }
        ctx.signals().workAvailable();
        return started;
    }
}
