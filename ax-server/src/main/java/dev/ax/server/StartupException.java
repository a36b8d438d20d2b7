package dev.ax.server;

/** The server refused to start; the message says why (database unreachable, schema guard, port taken). */
public final class StartupException extends RuntimeException {
    public StartupException(String message, Throwable cause) {
        super(message, cause);
    }
}
