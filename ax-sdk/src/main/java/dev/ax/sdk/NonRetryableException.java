package dev.ax.sdk;

/**
 * Thrown by a handler when another attempt cannot succeed (bad parameters, a record that does not
 * exist): the run fails at once instead of being retried.
 */
public class NonRetryableException extends RuntimeException {
    public NonRetryableException(String message) {
        super(message);
    }

    public NonRetryableException(String message, Throwable cause) {
        super(message, cause);
    }
}
