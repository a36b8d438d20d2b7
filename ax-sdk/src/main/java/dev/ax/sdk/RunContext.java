package dev.ax.sdk;

import dev.ax.domain.protocol.ApprovalAsk;
import dev.ax.domain.protocol.RunStateQuery;
import dev.ax.domain.protocol.WorkItem;
import dev.ax.domain.secret.SecretMask;
import dev.ax.executor.ExecutorChannel;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.function.BooleanSupplier;

/** The {@link AxContext} of one attempt on a worker. */
final class RunContext implements AxContext {

    private final WorkItem item;
    private final RunLog log;
    private final BooleanSupplier cancelled;
    private final IdempotencyStore store; // null when the worker has none

    private final ExecutorChannel channel;
    private final String executorId;

    RunContext(
            WorkItem item,
            RunLog log,
            BooleanSupplier cancelled,
            IdempotencyStore store,
            ExecutorChannel channel,
            String executorId) {
        this.item = item;
        this.log = log;
        this.cancelled = cancelled;
        this.store = store;
        this.channel = channel;
        this.executorId = executorId;
    }

    /** How often a waiting handler asks whether its approval came. */
    static final long APPROVAL_POLL_MILLIS = 500;

    @Override
    public void awaitApproval(String summary) throws InterruptedException {
        var asked = channel.requestApproval(new ApprovalAsk(
                executorId, item.ref(), SecretMask.of(item.masks()).apply(summary)));
        if (!asked.accepted()) {
            throw new CancellationException("approval request refused: " + asked.reason());
        }
        log("[ax] waiting for approval: " + (summary == null ? "" : summary));
        while (true) {
            if (cancelled.getAsBoolean() || Thread.currentThread().isInterrupted()) {
                throw new CancellationException("the run was stopped while waiting for approval");
            }
            var state = channel.runState(new RunStateQuery(executorId, item.ref()));
            if (!state.accepted()) {
                throw new CancellationException(state.reason());
            }
            if ("RUNNING".equals(state.reason())) {
                log("[ax] approved; going on");
                return;
            }
            if (!"WAITING_APPROVAL".equals(state.reason())) {
                throw new CancellationException("approval not given: the run is " + state.reason());
            }
            Thread.sleep(APPROVAL_POLL_MILLIS);
        }
    }

    @Override
    public String requestId() {
        // A server always sends one; the fallback is its default, so runOnce never runs without a key.
        return item.requestId() != null ? item.requestId() : "ax-" + item.instanceId();
    }

    @Override
    public long instanceId() {
        return item.instanceId();
    }

    @Override
    public int attempt() {
        return item.attempt();
    }

    @Override
    public int shardIndex() {
        return item.shardIndex() == null ? 0 : item.shardIndex();
    }

    @Override
    public int shardTotal() {
        return item.shardTotal() == null ? 1 : item.shardTotal();
    }

    @Override
    public String taskName() {
        return item.taskName();
    }

    @Override
    public Instant scheduledAt() {
        return item.scheduledAt();
    }

    @Override
    public Map<String, Object> params() {
        return item.params();
    }

    @Override
    public String param(String name) {
        Object value = item.params().get(name);
        return value == null ? null : String.valueOf(value);
    }

    @Override
    public void log(String text) {
        log.append(RunLog.STDOUT, text);
    }

    @Override
    public void progress(int percent, String note) {
        if (percent < 0 || percent > 100) {
            throw new IllegalArgumentException("percent must be between 0 and 100, was " + percent);
        }
        log(note == null || note.isBlank() ? "[progress] " + percent + "%" : "[progress] " + percent + "% " + note);
    }

    @Override
    public boolean isCancelled() {
        return cancelled.getAsBoolean();
    }

    @Override
    public String runOnce(TxWork work) throws Exception {
        if (store == null) {
            throw new IllegalStateException("runOnce needs an IdempotencyStore: build the worker with "
                    + "idempotencyStore(new IdempotencyStore(dataSource))");
        }
        IdempotencyStore.Once once = store.once(requestId(), work);
        if (once.replayed()) {
            log("[ax] request " + requestId() + " was already done (recorded " + once.recordedAt()
                    + "); not doing it again, returning its recorded result");
        }
        return once.result();
    }

    @Override
    public String toString() {
        return "AxContext[" + item.taskName() + " #" + item.instanceId() + " attempt " + item.attempt() + ", request "
                + requestId() + "]";
    }
}
