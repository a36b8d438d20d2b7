package dev.ax.scheduler;

import dev.ax.domain.time.AxClock;
import dev.ax.store.EventStore;
import dev.ax.store.Store;

/**
 * What every part of a server node needs, passed as one object.
 *
 * @param clock   the node's view of the database clock; used only to decide how long to sleep —
 *                whether a slot is due is decided in SQL by the database itself
 * @param secrets where the values of {@code {{secret.NAME}}} come from when work is handed out
 */
public record NodeContext(
        String nodeId, Store store, AxClock clock, SchedulerConfig config, Signals signals, SecretValues secrets) {
    /** The actor recorded on what the scheduler itself does. */
    public String schedulerActor() {
        return EventStore.SCHEDULER_ACTOR;
    }
}
