package dev.ax.store;

/** A conditional update found the row changed by someone else; the API answers 409. */
public final class ConcurrentChangeException extends RuntimeException {
    public ConcurrentChangeException(String message) {
        super(message);
    }
}
