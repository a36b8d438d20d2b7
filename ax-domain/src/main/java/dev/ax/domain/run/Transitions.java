package dev.ax.domain.run;

import static dev.ax.domain.run.RunState.*;

import dev.ax.domain.state.IllegalTransitionException;
import dev.ax.domain.state.StateMachine;
import java.util.Set;

/**
 * The one table of allowed state moves of a run. Every state change of a run is checked here before
 * the conditional UPDATE that makes it: {@code RunStore.move} for one run, {@code RunBatches}
 * for many at once. A move the table lacks throws {@link IllegalTransitionException}.
 */
public final class Transitions {
    public static final StateMachine<RunState> RUNS = StateMachine.of("run", RunState.class)
            .initial(READY, BLOCKED, WAITING_APPROVAL, SKIPPED, WAITING_DEPENDENCY)
            .allow(READY, RUNNING, BLOCKED, WAITING_APPROVAL, CANCELED, SKIPPED)
            // RUNNING -> WAITING_APPROVAL: a running job asks a person to confirm.
            .allow(RUNNING, SUCCESS, RETRYING, FAILED, TERMINATED, WAITING_APPROVAL)
            .allow(RETRYING, READY, CANCELED)
            // BLOCKED -> WAITING_APPROVAL: a slot freed for a run that a person must approve first.
            .allow(BLOCKED, READY, WAITING_APPROVAL, CANCELED, SKIPPED)
            // WAITING_APPROVAL -> RUNNING: an approved mid-run request lets the same attempt go on.
            .allow(WAITING_APPROVAL, READY, RUNNING, CANCELED)
            // WAITING_DEPENDENCY -> BLOCKED: dependencies met, it queues for a concurrency slot like a new run;
            // -> SKIPPED / FAILED: an upstream failed (policy SKIP / FAIL) or the wait deadline passed.
            .allow(WAITING_DEPENDENCY, READY, BLOCKED, SKIPPED, FAILED, CANCELED)
            .build();

    private Transitions() {}

    public static boolean isAllowed(RunState from, RunState to) {
        return RUNS.isAllowed(from, to);
    }

    public static boolean isInitial(RunState state) {
        return RUNS.isInitial(state);
    }

    /** Throws unless {@code from -> to} is in the table. */
    public static void check(RunState from, RunState to) {
        RUNS.check(from, to);
    }

    public static Set<RunState> allowedFrom(RunState from) {
        return RUNS.allowedFrom(from);
    }
}
