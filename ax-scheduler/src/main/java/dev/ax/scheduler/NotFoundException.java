package dev.ax.scheduler;

/** The thing asked for does not exist; the API answers 404. */
public final class NotFoundException extends RuntimeException {
    public NotFoundException(String message) {
        super(message);
    }
}
