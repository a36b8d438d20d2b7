package dev.ax.api;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ax.domain.secret.SecretMask;
import dev.ax.scheduler.Dispatcher;
import dev.ax.scheduler.Runs;
import dev.ax.scheduler.SchedulerNode;
import dev.ax.scheduler.Tasks;
import dev.ax.store.Store;

/**
 * What every handler needs, passed as one object.
 *
 * @param observability what /healthz adds and /metrics serves ({@link Observability#NONE} without monitoring)
 * @param auth          who is calling, and the cache of token lookups (a revoke drops its token from it)
 */
public record ApiContext(SchedulerNode node, ObjectMapper json, Observability observability, Auth auth) {

    public ApiContext {
        observability = observability == null ? Observability.NONE : observability;
    }

    public Store store() {
        return node.context().store();
    }

    public Tasks tasks() {
        return node.tasks();
    }

    public Runs runs() {
        return node.runs();
    }

    public Dispatcher dispatcher() {
        return node.dispatcher();
    }

    public String nodeId() {
        return node.context().nodeId();
    }

    /**
     * What answers write {@code ***} for: the values of the secrets this node knows of. Text is masked when stored; this
     * masks what was stored before a secret existed (or on a node that did not know it yet).
     */
    public SecretMask mask() {
        return node.secrets().mask();
    }

    /** An executor not heard from for this long counts as offline. */
    public long executorAliveMillis() {
        return node.context().config().executorAlive().toMillis();
    }
}
