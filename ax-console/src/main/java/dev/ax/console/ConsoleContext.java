package dev.ax.console;

import dev.ax.domain.secret.SecretMask;
import dev.ax.domain.time.AxClock;
import dev.ax.scheduler.SchedulerNode;
import dev.ax.store.Store;
import java.util.Locale;

/**
 * What every console handler needs, passed as one object.
 *
 * @param locale the server's language ({@code --locale}), for a person whose browser names none the console speaks
 */
record ConsoleContext(SchedulerNode node, Templates templates, Locale locale) {
    /** The node's clock: the database's in production, one a test moves. */
    AxClock clock() {
        return node.context().clock();
    }

    Store store() {
        return node.context().store();
    }

    String nodeId() {
        return node.context().nodeId();
    }

    /**
     * What pages write {@code ***} for: the values of the secrets this node knows of. Output is masked when stored; this
     * masks what was stored before a secret existed.
     */
    SecretMask mask() {
        return node.secrets().mask();
    }

    /** An executor not heard from for this long counts as offline (the scheduler's setting). */
    long executorAliveMillis() {
        return node.context().config().executorAlive().toMillis();
    }
}
