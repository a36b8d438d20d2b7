package dev.ax.alerts;

import dev.ax.domain.run.Cause;
import dev.ax.domain.task.TaskDefinition;
import dev.ax.store.EventRow;
import dev.ax.store.LogStore;
import dev.ax.store.RunRow;
import dev.ax.store.Store;
import dev.ax.store.Tx;
import dev.ax.store.read.RunHistoryReads;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Writes the content of a run's alert: what happened, to which run, the last lines of its output,
 * how it came to exist, and what to do now. "An alert is there to be acted on, not to start an
 * investigation": everything needed to decide is in the message.
 */
final class RunAlerts {
    static final int TAIL_LINES = 20;
    static final int TAIL_BYTES = 4096;
    /** The trigger chain is shown up to this many steps back. */
    static final int CHAIN_STEPS = 5;
    /** Recovery counts at most this many failures back. */
    static final int HISTORY = 50;

    private static final DateTimeFormatter LOCAL = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss");

    private final Store store;
    private final String consoleUrl;

    RunAlerts(Store store, String consoleUrl) {
        this.store = store;
        this.consoleUrl = consoleUrl;
    }

    /**
     * A run's alert. The facts are read here, once (the log tail of the failed attempt, the trigger chain); the words
     * are put together for each language its channels speak.
     */
    Outbox.Localized compose(
            Tx tx, AlertKind kind, EventRow event, RunRow run, TaskDefinition def, int failuresBefore) {
        boolean failure =
                kind == AlertKind.RUN_FAILED || kind == AlertKind.RUN_TIMED_OUT || kind == AlertKind.RUN_EXECUTOR_LOST;
        LogTail tail = failure ? logTail(tx, run.id(), run.attempt()) : LogTail.NONE;
        List<RunRow> chain = chain(tx, run);
        boolean cut = chain.size() > CHAIN_STEPS;
        return w -> content(w, kind, event, run, def, failuresBefore, tail, chain, cut);
    }

    private AlertContent content(
            AlertWords w,
            AlertKind kind,
            EventRow event,
            RunRow run,
            TaskDefinition def,
            int failuresBefore,
            LogTail tail,
            List<RunRow> chain,
            boolean cut) {
        long id = run.id();
        String task = run.taskName();
        ZoneId zone = def.trigger().timezone();
        Map<String, String> f = new LinkedHashMap<>();
        f.put("Task", w.text("value.task", task, run.taskVersion()));
        f.put("Run", "#" + id);
        f.put("Attempt", w.text("value.attempt", run.attempt(), run.maxAttempts()));
        f.put("State", w.text("state." + run.state().name(), run.state().name()));
        String title;
        String next;
        String log = "";
        switch (kind) {
            case RUN_FAILED, RUN_TIMED_OUT, RUN_EXECUTOR_LOST -> {
                f.put(
                        "Failure",
                        (run.failureKind() == null ? "" : run.failureKind().name() + ": ")
                                + undouble(nullToEmpty(run.message())));
                if (run.exitCode() != null) {
                    f.put("Exit code", run.exitCode().toString());
                }
                f.put("Failed at", time(event.at(), zone));
                if (run.executorId() != null) {
                    f.put("Executor", executor(w, run.executorId(), run.pid()));
                }
                title = switch (kind) {
                    case RUN_TIMED_OUT ->
                        def.policy().timeoutSeconds() == null
                                ? w.text("title.timed_out", task, id)
                                : w.text(
                                        "title.timed_out_after",
                                        task,
                                        id,
                                        w.human(Duration.ofSeconds(def.policy().timeoutSeconds())));
                    case RUN_EXECUTOR_LOST -> w.text("title.executor_lost", task, id, nullToEmpty(run.executorId()));
                    default -> w.text("title.failed", task, id, summary(run, w));
                };
                next = w.text("next.failed", id);
                log = tail.text(w);
            }
            case APPROVAL_WAITING -> {
                Object approvers = event.data().get("approvers");
                f.put("Approvers", approvers == null ? w.text("value.any_approver") : String.valueOf(approvers));
                if (run.approvalDeadline() != null) {
                    f.put("Expires at", time(run.approvalDeadline(), zone));
                }
                if (event.message() != null) {
                    f.put("Request", event.message());
                }
                title = w.text("title.approval_waiting", task, id);
                next = w.text("next.approval_waiting", id);
            }
            case APPROVAL_EXPIRED -> {
                f.put("Expired at", time(event.at(), zone));
                title = w.text("title.approval_expired", task, id);
                next = w.text("next.approval_expired", id);
            }
            case DEPENDENCY_DEADLINE -> {
                f.put("Gave up at", time(event.at(), zone));
                f.put("Waiting for", nullToEmpty(event.message()));
                title = w.text("title.dependency_deadline", task, id);
                next = w.text("next.dependency_deadline", id);
            }
            case RUN_SUCCEEDED -> {
                f.put("Succeeded at", time(event.at(), zone));
                title = w.text("title.succeeded", task, id);
                next = null;
            }
            case RUN_RECOVERED -> {
                f.put("Succeeded at", time(event.at(), zone));
                title = w.count("title.recovered", failuresBefore, task, id);
                next = null;
            }
            default -> throw new IllegalArgumentException("not a run alert: " + kind);
        }
        if (run.cause().isScheduled()) {
            f.put("Scheduled for", time(run.scheduledAt(), zone));
        }
        f.put("Trigger chain", chainText(chain, cut, w));
        return new AlertContent(kind, title, f, List.of(), log, next, link(id), w.locale());
    }

    /** "exec-1 (pid 4242)". */
    static String executor(AlertWords w, String executorId, Long pid) {
        return pid == null ? executorId : w.text("value.executor_pid", executorId, pid);
    }

    String link(long instanceId) {
        return consoleUrl == null ? null : consoleUrl + "/runs/" + instanceId;
    }

    /** How many final failures of the task came right before {@code run} (preview runs aside). */
    int failuresBefore(Tx tx, RunRow run) {
        return RunHistoryReads.failuresBefore(tx, run.taskId(), run.id(), HISTORY);
    }

    /** Lines from the end of stderr, added when the tail itself shows none (an error message is usually there). */
    static final int STDERR_LINES = 5;

    static final int STDERR_BYTES = 1024;

    /**
     * The last lines of one attempt's output, bounded. Both streams in the order they were stored;
     * executors ship stdout and stderr in separate chunks, so a last error line may be stored before
     * the stdout lines printed earlier: when the tail holds no stderr line, the last stderr lines
     * follow it under their own heading.
     */
    LogTail logTail(Tx tx, long instanceId, int attempt) {
        List<String> all = store.logs().last(tx, instanceId, attempt, null, TAIL_LINES).stream()
                .map(LogStore.Text::text)
                .toList();
        String tail = tail(all, TAIL_LINES, TAIL_BYTES - STDERR_BYTES);
        List<String> stderr = store.logs().last(tx, instanceId, attempt, "stderr", 3).stream()
                .map(LogStore.Text::text)
                .toList();
        if (stderr.isEmpty()) {
            return new LogTail(tail, "");
        }
        String errTail = tail(stderr, STDERR_LINES, STDERR_BYTES);
        String lastErr = errTail.lines().reduce((a, b) -> b).orElse("");
        boolean shown = lastErr.isEmpty() || ("\n" + tail).contains("\n" + lastErr + "\n");
        return new LogTail(tail, shown ? "" : errTail);
    }

    /** The last lines of an attempt's output, and the last lines of its stderr when those are not among them. */
    record LogTail(String tail, String stderr) {
        static final LogTail NONE = new LogTail("", "");

        /** The lines, the stderr ones under their own heading in the alert's language. */
        String text(AlertWords w) {
            return stderr.isEmpty() ? tail : tail + "-- " + w.text("log.stderr_heading") + " --\n" + stderr;
        }
    }

    /** The last {@code maxLines} lines of the chunks, at most {@code maxBytes} of UTF-8, cut at a line. */
    static String tail(List<String> chunksOldestFirst, int maxLines, int maxBytes) {
        List<String> lines = new ArrayList<>();
        for (String chunk : chunksOldestFirst) {
            Collections.addAll(lines, chunk.split("\n", -1));
        }
        while (!lines.isEmpty() && lines.getLast().isEmpty()) {
            lines.removeLast();
        }
        List<String> kept = new ArrayList<>();
        int bytes = 0;
        for (int i = lines.size() - 1; i >= 0 && kept.size() < maxLines; i--) {
            String line = lines.get(i);
            int size = line.getBytes(StandardCharsets.UTF_8).length + 1;
            if (bytes + size > maxBytes) {
                if (kept.isEmpty()) {
                    // One huge line: keep its end, which is where an error message usually is.
                    kept.add("…" + lastBytes(line, maxBytes - 4));
                }
                break;
            }
            kept.add(line);
            bytes += size;
        }
        Collections.reverse(kept);
        return kept.isEmpty() ? "" : String.join("\n", kept) + "\n";
    }

    /** The end of {@code s} within {@code maxBytes} of UTF-8, cut at a character. */
    static String lastBytes(String s, int maxBytes) {
        int bytes = 0;
        int start = s.length();
        while (start > 0) {
            int cp = s.codePointBefore(start);
            int size = new String(Character.toChars(cp)).getBytes(StandardCharsets.UTF_8).length;
            if (bytes + size > maxBytes) {
                break;
            }
            bytes += size;
            start -= Character.charCount(cp);
        }
        return s.substring(start);
    }

    /**
     * The run and the runs that led to it, newest first, up to {@link #CHAIN_STEPS} (one more when the chain goes
     * further: the text then starts with "…").
     */
    List<RunRow> chain(Tx tx, RunRow run) {
        List<RunRow> steps = new ArrayList<>();
        RunRow at = run;
        for (int i = 0; at != null && i <= CHAIN_STEPS; i++) {
            steps.add(at);
            Long parent = at.parentId();
            at = parent == null || i == CHAIN_STEPS
                    ? null
                    : store.runs().find(tx, parent).orElse(null);
        }
        return steps;
    }

    /** "#41 cron slot 2024-05-01T02:00:00Z → #45 retry by alice": how the run came to exist, root first. */
    static String chainText(List<RunRow> newestFirst, boolean cut, AlertWords w) {
        List<String> steps = new ArrayList<>();
        for (RunRow r : newestFirst.subList(0, Math.min(CHAIN_STEPS, newestFirst.size()))) {
            steps.add(step(r, w));
        }
        if (cut) {
            steps.add("…");
        }
        Collections.reverse(steps);
        return String.join(" → ", steps);
    }

    private static String step(RunRow r, AlertWords w) {
        String cause = w.text("cause." + r.cause().wireName(), r.cause().wireName());
        if (r.cause().isScheduled()) {
            return w.text("chain.slot", r.id(), cause, r.scheduledAt());
        } else if (r.cause() != Cause.PREVIEW && r.actor() != null && !r.actor().equals("scheduler")) {
            return w.text("chain.by", r.id(), cause, r.actor());
        }
        return w.text("chain.step", r.id(), cause);
    }

    /** What went wrong, in a few words, for a title. */
    static String summary(RunRow run, AlertWords w) {
        if (run.failureKind() == null) {
            return shorten(run.message(), 120);
        }
        return switch (run.failureKind()) {
            case EXIT_CODE -> w.text("summary.exit_code", run.exitCode());
            case TIMEOUT -> w.text("summary.timed_out");
            case EXECUTOR_LOST -> w.text("summary.executor_lost");
            case START_ERROR -> w.text("summary.start_error", shorten(undouble(nullToEmpty(run.message())), 100));
            case HTTP_STATUS -> w.text("summary.http_status", run.exitCode());
            case CONNECTION -> w.text("summary.connection");
            default -> shorten(undouble(nullToEmpty(run.message())), 120);
        };
    }

    /** "exited with code 3: exited with code 3" (the scheduler's words, then the executor's same words) → once. */
    static String undouble(String s) {
        int half = s.indexOf(": ");
        while (half > 0) {
            if (s.substring(0, half).equals(s.substring(half + 2))) {
                return s.substring(0, half);
            }
            half = s.indexOf(": ", half + 1);
        }
        return s;
    }

    static String time(Instant t, ZoneId zone) {
        if (t == null) {
            return "";
        }
        return LOCAL.format(t.atZone(zone)) + " " + zone.getId() + " (" + t + ")";
    }

    /** "45s", "3m 5s", "2h 5m": English, for logs, events and /healthz; an alert says it in its own words. */
    static String human(Duration d) {
        return AlertWords.ENGLISH.human(d);
    }

    static String shorten(String s, int max) {
        if (s == null) {
            return "";
        }
        String oneLine = s.replace('\n', ' ');
        return oneLine.length() <= max ? oneLine : oneLine.substring(0, max - 1) + "…";
    }

    private static String nullToEmpty(String s) {
        return s == null ? "" : s;
    }
}
