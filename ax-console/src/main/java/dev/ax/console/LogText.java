package dev.ax.console;

import dev.ax.console.Views.LogItem;
import dev.ax.store.LogStore.LogLine;
import java.util.ArrayList;
import java.util.List;

/** A run's output chunks as the page shows them: one item per chunk, a marker line where a new attempt begins. */
final class LogText {
    private LogText() {
    }

    static List<LogItem> of(List<LogLine> chunks) {
        return of(chunks, 1);
    }

    /** {@code previousAttempt}: the attempt of the chunk before these (0 = none), so a stream continues without a marker. */
    static List<LogItem> of(List<LogLine> chunks, int previousAttempt) {
        List<LogItem> items = new ArrayList<>();
        int attempt = previousAttempt;
        for (LogLine chunk : chunks) {
            if (chunk.attempt() != attempt) {
                items.add(new LogItem("log-attempt", "── attempt " + chunk.attempt() + " ──\n"));
                attempt = chunk.attempt();
            }
            items.add(new LogItem("stderr".equals(chunk.stream()) ? "log-err" : "log-out", chunk.text() + "\n"));
        }
        return items;
    }
}
