package dev.ax.domain.workflow;

import java.util.Arrays;
import java.util.Optional;

/**
 * When a workflow node runs, given how its upstream nodes ended (see {@link NodeRule}).
 * A node with no upstream node runs when the workflow run starts.
 */
public enum TriggerRule {
    /** Every upstream node succeeded (the default). An upstream failure or skip skips the node. */
    ALL_SUCCESS("allSuccess"),
    /** Every upstream node is final, however it ended. */
    ALL_DONE("allDone"),
    /** At least one upstream node failed: a cleanup node. Skipped when all ended and none failed. */
    ONE_FAILED("oneFailed");

    private final String wireName;

    TriggerRule(String wireName) {
        this.wireName = wireName;
    }

    public String wireName() {
        return wireName;
    }

    public static Optional<TriggerRule> ofWire(String name) {
        return Arrays.stream(values()).filter(r -> r.wireName.equals(name)).findFirst();
    }
}
