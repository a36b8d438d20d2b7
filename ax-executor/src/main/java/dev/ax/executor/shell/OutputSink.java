package dev.ax.executor.shell;

/**
 * Receives a running command's output, one line at a time.
 *
 * <p>Calls come from the runner's reader threads. For one run they are serialized (never concurrent), and lines of
 * one stream arrive in the order the process wrote them. Lines of STDOUT and STDERR are not ordered relative to each
 * other. The trailing newline (and a CR before it) is stripped; a line longer than 64 KiB is delivered in several
 * pieces. Bytes are decoded as UTF-8 (malformed input becomes U+FFFD). No call happens after
 * {@link RunningShell#await()} returned. A sink should be quick; an exception it throws is logged and the line dropped.
 */
public interface OutputSink {

    void line(Stream stream, String line);

    /**
     * A piece of a line longer than 64 KiB: the line goes on in the next call for this stream (another piece, or
     * {@link #line} with its end). A sink that looks at whole lines (masking secrets) joins them; by default a piece is
     * delivered as a line of its own.
     */
    default void piece(Stream stream, String piece) {
        line(stream, piece);
    }

    enum Stream {
        STDOUT,
        STDERR
    }

    /** A sink that drops everything. */
    static OutputSink discard() {
        return (stream, line) -> {};
    }
}
