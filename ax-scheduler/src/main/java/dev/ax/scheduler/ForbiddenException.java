package dev.ax.scheduler;

/** The caller is known but may not do this (not an approver, four-eyes); the API answers 403. */
public final class ForbiddenException extends RuntimeException {
    public ForbiddenException(String message) {
        super(message);
    }
}
