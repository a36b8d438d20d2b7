package dev.ax.domain.run;

import static dev.ax.domain.run.InstanceState.*;

import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;

/**
 * The one table of allowed state moves. Every state change in AX is checked here before the
 * conditional UPDATE that makes it: {@code InstanceStore.move} for one run, {@code RunBatches}
 * for many at once.
 */
public final class Transitions {
    private static final Map<InstanceState, Set<InstanceState>> ALLOWED = new EnumMap<>(InstanceState.class);

    /** States an instance may be created in. */
    private static final Set<InstanceState> INITIAL =
            EnumSet.of(READY, BLOCKED, WAITING_APPROVAL, SKIPPED, WAITING_DEPENDENCY);

    static {
        ALLOWED.put(READY, EnumSet.of(RUNNING, BLOCKED, WAITING_APPROVAL, CANCELED, SKIPPED));
        // RUNNING -> WAITING_APPROVAL: a running job asks a person to confirm.
        ALLOWED.put(RUNNING, EnumSet.of(SUCCESS, RETRYING, FAILED, TERMINATED, WAITING_APPROVAL));
        ALLOWED.put(RETRYING, EnumSet.of(READY, CANCELED));
        // BLOCKED -> WAITING_APPROVAL: a slot freed for a run that a person must approve first.
        ALLOWED.put(BLOCKED, EnumSet.of(READY, WAITING_APPROVAL, CANCELED, SKIPPED));
        // WAITING_APPROVAL -> RUNNING: an approved mid-run request lets the same attempt go on.
        ALLOWED.put(WAITING_APPROVAL, EnumSet.of(READY, RUNNING, CANCELED));
        // WAITING_DEPENDENCY -> BLOCKED: dependencies met, it queues for a concurrency slot like a new run;
        // -> SKIPPED / FAILED: an upstream failed (policy SKIP / FAIL) or the wait deadline passed.
        ALLOWED.put(WAITING_DEPENDENCY, EnumSet.of(READY, BLOCKED, SKIPPED, FAILED, CANCELED));
        for (InstanceState s : InstanceState.values()) {
            if (s.isTerminal()) {
                ALLOWED.put(s, EnumSet.noneOf(InstanceState.class));
            }
        }
    }

    private Transitions() {}

    public static boolean isAllowed(InstanceState from, InstanceState to) {
        return ALLOWED.get(from).contains(to);
    }

    public static boolean isInitial(InstanceState state) {
        return INITIAL.contains(state);
    }

    /** Throws unless {@code from -> to} is in the table. */
    public static void check(InstanceState from, InstanceState to) {
        if (!isAllowed(from, to)) {
            throw new IllegalTransitionException(from, to);
        }
    }

    public static Set<InstanceState> allowedFrom(InstanceState from) {
        return Set.copyOf(ALLOWED.get(from));
    }
}
