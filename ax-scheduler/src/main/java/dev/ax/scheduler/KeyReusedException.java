package dev.ax.scheduler;

/**
 * A trigger's idempotency key was used, within its window, for a different request to the same task (other
 * parameters, or another {@code force}): answering with the first run would tell the caller its request ran
 * when it did not. Nothing is written; the API answers 422.
 */
public final class KeyReusedException extends RuntimeException {
    public KeyReusedException(String message) {
        super(message);
    }
}
