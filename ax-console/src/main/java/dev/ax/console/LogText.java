package dev.ax.console;

import dev.ax.console.Views.LogItem;
import dev.ax.domain.secret.SecretMask;
import dev.ax.store.LogStore.LogLine;
import java.util.ArrayList;
import java.util.List;

/** A run's output chunks as the page shows them: one item per chunk, a marker line where a new attempt (or shard) begins. */
final class LogText {
    private LogText() {}

    static List<LogItem> of(List<LogLine> chunks) {
        return of(chunks, 1);
    }

    static List<LogItem> of(List<LogLine> chunks, int previousAttempt) {
        return of(chunks, previousAttempt, SecretMask.NONE, I18n.english());
    }

    /**
     * {@code previousAttempt}: the attempt of the chunk before these (0 = none), so a stream continues without a marker;
     * {@code mask}: the values of secrets, written as {@code ***}; {@code t}: the words of the markers.
     */
    static List<LogItem> of(List<LogLine> chunks, int previousAttempt, SecretMask mask, I18n t) {
        List<LogItem> items = new ArrayList<>();
        int attempt = previousAttempt;
        Integer shard = null;
        for (LogLine chunk : chunks) {
            if (chunk.shard() != null) {
                // A sharded run: shards' chunks interleave, so each change of shard or attempt is marked.
                if (!chunk.shard().equals(shard) || chunk.attempt() != attempt) {
                    items.add(new LogItem(
                            "log-attempt",
                            "── " + t.text("log.shard_attempt", chunk.shard(), chunk.attempt()) + " ──\n"));
                    shard = chunk.shard();
                    attempt = chunk.attempt();
                }
            } else if (chunk.attempt() != attempt) {
                items.add(new LogItem("log-attempt", "── " + t.text("log.attempt", chunk.attempt()) + " ──\n"));
                attempt = chunk.attempt();
            }
            items.add(new LogItem(
                    "stderr".equals(chunk.stream()) ? "log-err" : "log-out", mask.apply(chunk.text()) + "\n"));
        }
        return items;
    }
}
