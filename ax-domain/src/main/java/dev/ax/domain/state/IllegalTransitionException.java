package dev.ax.domain.state;

/**
 * A state move that a {@link StateMachine} does not allow: always a bug or a refused request, never
 * silently ignored. The API answers it with 409.
 */
public final class IllegalTransitionException extends RuntimeException {
    private final Enum<?> from;
    private final Enum<?> to;

    public IllegalTransitionException(String thing, Enum<?> from, Enum<?> to) {
        super("a " + thing + " cannot move from " + from + " to " + to);
        this.from = from;
        this.to = to;
    }

    public Enum<?> from() {
        return from;
    }

    public Enum<?> to() {
        return to;
    }
}
