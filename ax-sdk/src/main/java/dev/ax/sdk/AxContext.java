package dev.ax.sdk;

import java.time.Instant;
import java.util.Map;

/**
 * What a handler knows about the attempt it runs, and how it talks back to AX. One context per
 * attempt; safe to use from threads the handler starts, as long as the attempt lasts.
 */
public interface AxContext {

    /**
     * The key that identifies this piece of work across attempts and re-deliveries:
     * {@code ax-<instanceId>} by default, or the task's rendered {@code policy.idempotencyKey}
     * (then it may span runs, e.g. one per business date). Use it as the idempotency key
     * towards other systems.
     */
    String requestId();

    long instanceId();

    /** 1 for the first attempt, 2 for the first retry, ... */
    int attempt();

    /**
     * Which shard of a sharded run ({@code policy.sharding}) this handler call is, from 0; 0 for a
     * run that is not sharded. {@link #attempt()} is then the shard's own attempt.
     */
    default int shardIndex() {
        return 0;
    }

    /** How many shards the run has; 1 for a run that is not sharded. */
    default int shardTotal() {
        return 1;
    }

    String taskName();

    /** The schedule slot this run is for; {@code null} for a run without one (manual, event). */
    Instant scheduledAt();

    /** The run's parameters as JSON types (String, Number, Boolean, List, Map); never null. */
    Map<String, Object> params();

    /** One parameter as text ({@code 42} for a number), or {@code null} when absent. */
    String param(String name);

    /** Appends a line (or several, split at line breaks) to the run's log, visible in AX at once. */
    void log(String text);

    /** Logs {@code [progress] 40% note}. */
    void progress(int percent, String note);

    /**
     * True once the attempt should stop: an operator terminated it, the worker lost its lease,
     * the task's timeout passed, or the worker is shutting down. The handler thread is also
     * interrupted then, so blocking calls throw {@link InterruptedException}.
     */
    boolean isCancelled();

    /**
     * Runs {@code work} once for {@link #requestId()}: in one transaction on the worker's
     * {@link IdempotencyStore}, the request id is recorded, the work runs on the same connection,
     * its result is stored, and all of it commits together. If the request id was already
     * recorded (an earlier attempt committed, then its report was lost), the work does not run
     * and the recorded result is returned.
     *
     * @throws IllegalStateException when the worker was built without an {@link IdempotencyStore}
     */
    String runOnce(TxWork work) throws Exception;

    /**
     * Asks a person to confirm before the handler goes on and blocks until they decide. The run waits in WAITING_APPROVAL,
     * keeping its lease. Returns when approved; when rejected or expired the run is canceled and
     * this throws {@link java.util.concurrent.CancellationException} (the thread is interrupted too).
     */
    void awaitApproval(String summary) throws InterruptedException;
}
