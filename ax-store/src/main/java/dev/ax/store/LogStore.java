package dev.ax.store;

import dev.ax.domain.protocol.RunRef;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;

/** Run output as executors send it: chunks of lines per attempt and stream. */
public final class LogStore {
    public record LogLine(long chunkId, int attempt, String stream, Instant at, String text) {
    }

    public void append(Tx tx, RunRef run, String stream, List<String> lines) {
        if (lines.isEmpty()) {
            return;
        }
        tx.update("INSERT INTO ax_log (instance_id, attempt, stream, at, text) VALUES (?, ?, ?, CURRENT_TIMESTAMP, ?)",
                run.instanceId(), run.attempt(), stream, String.join("\n", lines));
    }

    /** Chunks of an instance after {@code afterChunkId}, oldest first (for following a live log). */
    public List<LogLine> read(Tx tx, long instanceId, long afterChunkId, int limit) {
        return tx.query("SELECT id, attempt, stream, at, text FROM ax_log WHERE instance_id = ? AND id > ? ORDER BY id LIMIT ?",
                LogStore::map, instanceId, afterChunkId, limit);
    }

    private static LogLine map(Tx.Row r) throws SQLException {
        return new LogLine(r.lng("id"), r.integer("attempt"), r.str("stream"), r.instant("at"), r.str("text"));
    }
}
