package dev.ax.sdk;

import dev.ax.domain.protocol.Completion;
import dev.ax.domain.protocol.RunRef;
import dev.ax.domain.run.FailureKind;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.TreeSet;

/**
 * How a handler's ending becomes a report: pure functions, one per way an attempt can end (the
 * table is in {@link AxHandler}'s comment).
 */
final class Outcomes {

    /** Longest message sent; the rest of a long result or exception message is cut. */
    static final int MAX_MESSAGE_CHARS = 4000;
    /** Stack trace lines that go to the run's log when a handler throws. */
    static final int MAX_TRACE_LINES = 40;

    private Outcomes() {}

    static Completion success(String executorId, RunRef run, Object result) {
        return new Completion(executorId, run, true, null, 0, result == null ? null : cut(String.valueOf(result)));
    }

    static Completion failure(String executorId, RunRef run, Throwable failure) {
        if (failure instanceof NonRetryableException) {
            return new Completion(executorId, run, false, FailureKind.FATAL, null, cut(describe(failure)));
        }
        // No exit code: a handler is not a process; the server words it "failed: <exception>".
        return new Completion(executorId, run, false, FailureKind.EXIT_CODE, null, cut(describe(failure)));
    }

    /**
     * @param stillRunning the handler ignored the interruption and had not returned when the grace period ended
     */
    static Completion timeout(
            String executorId, RunRef run, String handler, long timeoutSeconds, boolean stillRunning) {
        return new Completion(
                executorId,
                run,
                false,
                FailureKind.TIMEOUT,
                null,
                "handler '" + handler + "' ran longer than the timeout of " + timeoutSeconds + " s and was interrupted"
                        + (stillRunning ? "; it ignored the interruption and still runs" : ""));
    }

    static Completion noHandler(String executorId, RunRef run, String handler, Collection<String> registered) {
        return new Completion(
                executorId,
                run,
                false,
                FailureKind.START_ERROR,
                null,
                "no handler '" + handler + "' registered in this worker (handlers: "
                        + String.join(", ", new TreeSet<>(registered)) + ")");
    }

    /** A run of another action type (a shell task aimed at this worker's group): an SDK worker only runs handlers. */
    static Completion unsupported(String executorId, RunRef run, String actionType) {
        return new Completion(
                executorId,
                run,
                false,
                FailureKind.START_ERROR,
                null,
                "action type " + actionType
                        + " is not supported by this executor (an AX SDK worker runs sdk actions only)");
    }

    /** {@code java.lang.IllegalStateException: the message}; the cause is named when the message is empty. */
    static String describe(Throwable t) {
        String text = t.toString();
        if ((t.getMessage() == null || t.getMessage().isBlank()) && t.getCause() != null) {
            text += " (caused by " + t.getCause() + ")";
        }
        return text;
    }

    /** The head of a stack trace, for the run's log. */
    static List<String> trace(Throwable t) {
        StringWriter out = new StringWriter();
        t.printStackTrace(new PrintWriter(out));
        List<String> lines = new ArrayList<>(out.toString().lines().toList());
        if (lines.size() > MAX_TRACE_LINES) {
            int more = lines.size() - MAX_TRACE_LINES;
            lines = new ArrayList<>(lines.subList(0, MAX_TRACE_LINES));
            lines.add("\t... " + more + " more lines");
        }
        return lines;
    }

    static String cut(String s) {
        return s.length() <= MAX_MESSAGE_CHARS ? s : s.substring(0, MAX_MESSAGE_CHARS) + "…";
    }
}
