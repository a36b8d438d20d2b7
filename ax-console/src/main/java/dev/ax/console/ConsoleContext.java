package dev.ax.console;

import dev.ax.scheduler.SchedulerNode;
import dev.ax.store.Store;

/** What every console handler needs, passed as one object. */
record ConsoleContext(SchedulerNode node, Templates templates) {
    Store store() {
        return node.context().store();
    }

    String nodeId() {
        return node.context().nodeId();
    }

    /** An executor not heard from for this long counts as offline (the scheduler's setting). */
    long executorAliveMillis() {
        return node.context().config().executorAlive().toMillis();
    }
}
