package dev.ax.scheduler;

/** The request clashes with the current state (a name taken, a run already finished); the API answers 409. */
public final class ConflictException extends RuntimeException {
    public ConflictException(String message) {
        super(message);
    }
}
