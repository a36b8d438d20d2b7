package dev.ax.domain.state;

import java.util.Collections;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;

/**
 * The allowed moves of one kind of stateful thing, as one table: every state change of such a
 * thing is checked here before the conditional update that makes it, and a move the table lacks
 * throws {@link IllegalTransitionException}. A state with no move out of it is final.
 *
 * <p>The tables of AX, each beside its states: runs ({@code run.Transitions}), shards
 * ({@code run.ShardState}), backfills ({@code run.BackfillState}), failure follow-ups
 * ({@code run.FollowUpState}), canary rollouts ({@code task.CanaryState}), workflow runs, their
 * nodes and workflow backfills ({@code workflow.*State}), and alerts ({@code alert.AlertState}).
 */
public final class StateMachine<S extends Enum<S>> {
    private final String thing;
    private final Class<S> type;
    private final Map<S, Set<S>> allowed;
    private final Set<S> initial;

    private StateMachine(String thing, Class<S> type, Map<S, Set<S>> allowed, Set<S> initial) {
        this.thing = thing;
        this.type = type;
        this.allowed = allowed;
        this.initial = initial;
    }

    /** A table for {@code thing} (as errors name it: "a shard cannot move from …"). */
    public static <S extends Enum<S>> Builder<S> of(String thing, Class<S> states) {
        return new Builder<>(thing, states);
    }

    public boolean isAllowed(S from, S to) {
        return allowed.get(from).contains(to);
    }

    /** Throws unless {@code from -> to} is in the table. */
    public void check(S from, S to) {
        if (!isAllowed(from, to)) {
            throw new IllegalTransitionException(thing, from, to);
        }
    }

    /** A state a thing may be created in. */
    public boolean isInitial(S state) {
        return initial.contains(state);
    }

    /** Throws unless a thing may be created in {@code state}. */
    public void checkInitial(S state) {
        if (!isInitial(state)) {
            throw new IllegalArgumentException("a " + thing + " cannot be created " + state);
        }
    }

    /** A state with no move out of it. */
    public boolean isFinal(S state) {
        return allowed.get(state).isEmpty();
    }

    public Set<S> allowedFrom(S from) {
        return allowed.get(from);
    }

    public Set<S> initialStates() {
        return initial;
    }

    public String thing() {
        return thing;
    }

    /** Every state, in declaration order. */
    public S[] states() {
        return type.getEnumConstants();
    }

    @Override
    public String toString() {
        return thing + " states";
    }

    public static final class Builder<S extends Enum<S>> {
        private final String thing;
        private final Class<S> states;
        private final Map<S, EnumSet<S>> allowed;
        private Set<S> initial;

        private Builder(String thing, Class<S> states) {
            this.thing = thing;
            this.states = states;
            this.allowed = new EnumMap<>(states);
            for (S s : states.getEnumConstants()) {
                allowed.put(s, EnumSet.noneOf(states));
            }
        }

        /** The states a thing may be created in. */
        @SafeVarargs
        public final Builder<S> initial(S first, S... more) {
            initial = EnumSet.of(first, more);
            return this;
        }

        /** {@code from} may move to each of {@code to}. */
        @SafeVarargs
        public final Builder<S> allow(S from, S first, S... more) {
            allowed.get(from).addAll(EnumSet.of(first, more));
            return this;
        }

        public StateMachine<S> build() {
            if (initial == null) {
                throw new IllegalStateException("the " + thing + " table names no initial state");
            }
            Map<S, Set<S>> frozen = new EnumMap<>(states);
            allowed.forEach((s, to) -> frozen.put(s, Collections.unmodifiableSet(EnumSet.copyOf(to))));
            return new StateMachine<>(
                    thing, states, Collections.unmodifiableMap(frozen), Collections.unmodifiableSet(initial));
        }
    }
}
