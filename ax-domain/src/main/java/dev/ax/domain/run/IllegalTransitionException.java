package dev.ax.domain.run;

/** A state move that {@link Transitions} does not allow: always a bug or a refused request, never silently ignored. */
public final class IllegalTransitionException extends RuntimeException {
    private final InstanceState from;
    private final InstanceState to;

    public IllegalTransitionException(InstanceState from, InstanceState to) {
        super("an instance cannot move from " + from + " to " + to);
        this.from = from;
        this.to = to;
    }

    public InstanceState from() {
        return from;
    }

    public InstanceState to() {
        return to;
    }
}
