package dev.ax.cli;

/**
 * The exit codes of every {@code ax} command, so scripts can tell "the server said no" from "the server is not there".
 */
public final class ExitCodes {
    /** Done. */
    public static final int OK = 0;
    /** The server refused the request (4xx, or a 5xx), or the awaited run did not succeed. */
    public static final int REFUSED = 1;
    /** Bad arguments or options: nothing was sent. Picocli's own code for usage errors. */
    public static final int USAGE = 2;
    /** The server could not be reached (connection refused, unknown host, timeout). */
    public static final int UNREACHABLE = 3;

    private ExitCodes() {}
}
