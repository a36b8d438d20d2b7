package dev.ax.store;

import dev.ax.domain.protocol.RunRef;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;

/** Run output as executors send it: chunks of lines per attempt (and shard, for sharded runs) and stream. */
public final class LogStore {
    /** @param shard the shard index of a sharded run's chunk, {@code null} otherwise */
    public record LogLine(long chunkId, int attempt, String stream, Instant at, String text, Integer shard) {
        public LogLine(long chunkId, int attempt, String stream, Instant at, String text) {
            this(chunkId, attempt, stream, at, text, null);
        }
    }

    public void append(Tx tx, RunRef run, String stream, List<String> lines) {
        if (lines.isEmpty()) {
            return;
        }
        tx.update("INSERT INTO ax_log (instance_id, attempt, shard_index, stream, at, text) VALUES (?, ?, ?, ?, CURRENT_TIMESTAMP, ?)",
                run.instanceId(), run.attempt(), run.shard(), stream, String.join("\n", lines));
    }

    /** One chunk of {@link #appendAll}. */
    public record Chunk(RunRef run, String stream, List<String> lines) {
    }

    /** Many {@link #append}s in one JDBC batch (one round trip), in the order given: a run's chunks keep their order. */
    public void appendAll(Tx tx, List<Chunk> chunks) {
        List<Object[]> rows = new java.util.ArrayList<>(chunks.size());
        for (Chunk c : chunks) {
            if (!c.lines().isEmpty()) {
                rows.add(new Object[] {c.run().instanceId(), c.run().attempt(), c.run().shard(), c.stream(), String.join("\n", c.lines())});
            }
        }
        tx.batch("INSERT INTO ax_log (instance_id, attempt, shard_index, stream, at, text) VALUES (?, ?, ?, ?, CURRENT_TIMESTAMP, ?)", rows);
    }

    /** Chunks of an instance after {@code afterChunkId}, oldest first (for following a live log). */
    public List<LogLine> read(Tx tx, long instanceId, long afterChunkId, int limit) {
        return tx.query("SELECT id, attempt, shard_index, stream, at, text FROM ax_log WHERE instance_id = ? AND id > ? ORDER BY id LIMIT ?",
                LogStore::map, instanceId, afterChunkId, limit);
    }

    /** Like {@link #read(Tx, long, long, int)}, only the chunks of one shard ({@code null}: every chunk). */
    public List<LogLine> read(Tx tx, long instanceId, Integer shard, long afterChunkId, int limit) {
        if (shard == null) {
            return read(tx, instanceId, afterChunkId, limit);
        }
        return tx.query("SELECT id, attempt, shard_index, stream, at, text FROM ax_log WHERE instance_id = ? AND shard_index = ?"
                + " AND id > ? ORDER BY id LIMIT ?", LogStore::map, instanceId, shard, afterChunkId, limit);
    }

    private static LogLine map(Tx.Row r) throws SQLException {
        return new LogLine(r.lng("id"), r.integer("attempt"), r.str("stream"), r.instant("at"), r.str("text"), r.nullableInt("shard_index"));
    }
}
