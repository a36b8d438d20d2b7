package dev.ax.sdk;

/**
 * An AX API call that did not succeed: the server answered outside 2xx ({@link #status()} is the
 * HTTP status, the message is the server's error message), or it could not be reached ({@link #status()} 0).
 */
public class AxClientException extends RuntimeException {
    private final int status;
    private final String body;

    public AxClientException(int status, String message, String body, Throwable cause) {
        super(message, cause);
        this.status = status;
        this.body = body;
    }

    /** The HTTP status, or 0 when there was no answer. */
    public int status() {
        return status;
    }

    /** The answer's body as it came, or null. */
    public String body() {
        return body;
    }
}
