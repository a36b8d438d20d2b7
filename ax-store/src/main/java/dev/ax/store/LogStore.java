package dev.ax.store;

import dev.ax.domain.protocol.RunRef;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** Run output as executors send it: chunks of lines per attempt (and shard, for sharded runs) and stream. */
public final class LogStore {
    /**
     * A run's chunks were written after it was created (both times are the database's): on PostgreSQL, where output
     * is partitioned by day (HistoryPartitions), this bounds a read of one run's output to the days since, instead of
     * one look into every day's partition. Binds the run's id.
     */
    static final String SINCE_RUN = " AND at >= (SELECT r.created_at FROM ax_instance r WHERE r.id = ?)";

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
        tx.update(
                "INSERT INTO ax_log (instance_id, attempt, shard_index, stream, at, text) VALUES (?, ?, ?, ?, CURRENT_TIMESTAMP, ?)",
                run.instanceId(),
                run.attempt(),
                run.shard(),
                stream,
                String.join("\n", lines));
    }

    /** One chunk of {@link #appendAll}. */
    public record Chunk(RunRef run, String stream, List<String> lines) {}

    /** Many {@link #append}s in one JDBC batch (one round trip), in the order given: a run's chunks keep their order. */
    public void appendAll(Tx tx, List<Chunk> chunks) {
        List<Object[]> rows = new ArrayList<>(chunks.size());
        for (Chunk c : chunks) {
            if (!c.lines().isEmpty()) {
                rows.add(new Object[] {
                    c.run().instanceId(), c.run().attempt(), c.run().shard(), c.stream(), String.join("\n", c.lines())
                });
            }
        }
        tx.batch(
                "INSERT INTO ax_log (instance_id, attempt, shard_index, stream, at, text) VALUES (?, ?, ?, ?, CURRENT_TIMESTAMP, ?)",
                rows);
    }

    /** Chunks of a run after {@code afterChunkId}, oldest first (for following a live log). */
    public List<LogLine> read(Tx tx, long instanceId, long afterChunkId, int limit) {
        return tx.query(
                "SELECT id, attempt, shard_index, stream, at, text FROM ax_log WHERE instance_id = ?" + SINCE_RUN
                        + " AND id > ? ORDER BY id LIMIT ?",
                LogStore::map,
                instanceId,
                instanceId,
                afterChunkId,
                limit);
    }

    /** Like {@link #read(Tx, long, long, int)}, only the chunks of one shard ({@code null}: every chunk). */
    public List<LogLine> read(Tx tx, long instanceId, Integer shard, long afterChunkId, int limit) {
        if (shard == null) {
            return read(tx, instanceId, afterChunkId, limit);
        }
        return tx.query(
                "SELECT id, attempt, shard_index, stream, at, text FROM ax_log WHERE instance_id = ?" + SINCE_RUN
                        + " AND shard_index = ? AND id > ? ORDER BY id LIMIT ?",
                LogStore::map,
                instanceId,
                instanceId,
                shard,
                afterChunkId,
                limit);
    }

    /** The newest chunk's id (0 when there is none). */
    public long lastChunkId(Tx tx) {
        return tx.queryOne("SELECT COALESCE(MAX(id), 0) AS m FROM ax_log", r -> r.lng("m"))
                .orElse(0L);
    }

    /** The runs that wrote chunks with {@code afterId < id <= toId}. */
    public List<Long> runsWrittenBetween(Tx tx, long afterId, long toId) {
        return tx.query(
                "SELECT DISTINCT instance_id FROM ax_log WHERE id > ? AND id <= ?",
                r -> r.lng("instance_id"),
                afterId,
                toId);
    }

    /** A chunk's size in bytes of stored text; {@code marker}: its text starts with the given prefix. */
    public record ChunkSize(long id, long bytes, boolean marker) {}

    /** The size of each chunk of a run, oldest first, after locking the run's row (so one node caps it at a time). */
    public List<ChunkSize> lockAndMeasure(Tx tx, long instanceId, String markerPrefix) {
        if (tx.queryOne("SELECT id FROM ax_instance WHERE id = ? FOR UPDATE", r -> r.lng("id"), instanceId)
                .isEmpty()) {
            return List.of();
        }
        return tx.query(
                "SELECT id, OCTET_LENGTH(text) AS n, CASE WHEN text LIKE ? THEN 1 ELSE 0 END AS marker"
                        + " FROM ax_log WHERE instance_id = ?" + SINCE_RUN + " ORDER BY id",
                r -> new ChunkSize(r.lng("id"), r.lng("n"), r.integer("marker") == 1),
                markerPrefix + "%",
                instanceId,
                instanceId);
    }

    public void delete(Tx tx, List<Long> chunkIds) {
        for (int i = 0; i < chunkIds.size(); i += 500) {
            List<Long> part = chunkIds.subList(i, Math.min(chunkIds.size(), i + 500));
            tx.update(
                    "DELETE FROM ax_log WHERE id IN (" + String.join(", ", Collections.nCopies(part.size(), "?")) + ")",
                    part.toArray());
        }
    }

    /** Replaces a chunk's text, as stderr (the cap's marker). */
    public void rewrite(Tx tx, long chunkId, String text) {
        tx.update("UPDATE ax_log SET text = ?, stream = 'stderr' WHERE id = ?", text, chunkId);
    }

    /**
     * A chunk as retention sees it: when it was written and when its run ended ({@code null} while the run goes on;
     * {@code runGone}: no such run any more).
     */
    public record ChunkAge(long id, Instant at, Instant runEndedAt, boolean runGone) {}

    /**
     * Chunks with an id above {@code afterId}, oldest first, each with its run's end (the primary keys of both tables):
     * retention walks the output once, from where it stopped, instead of joining the two tables on every round.
     */
    public List<ChunkAge> chunksAfter(Tx tx, long afterId, int limit) {
        return tx.query(
                "SELECT l.id, l.at, i.id AS run, i.finished_at FROM ax_log l LEFT JOIN ax_instance i ON i.id = l.instance_id"
                        + " WHERE l.id > ? ORDER BY l.id LIMIT ?",
                r -> new ChunkAge(
                        r.lng("id"), r.instant("at"), r.instant("finished_at"), r.nullableLong("run") == null),
                afterId,
                limit);
    }

    /** One chunk's stream and text. */
    public record Text(String stream, String text) {}

    /** The last {@code limit} chunks of one attempt, oldest first; of one stream only unless {@code stream} is null. */
    public List<Text> last(Tx tx, long instanceId, int attempt, String stream, int limit) {
        List<Text> chunks = new ArrayList<>(tx.query(
                "SELECT stream, text FROM ax_log WHERE instance_id = ?" + SINCE_RUN + " AND attempt = ?"
                        + (stream == null ? "" : " AND stream = ?") + " ORDER BY id DESC LIMIT ?",
                r -> new Text(r.str("stream"), r.str("text")),
                stream == null
                        ? new Object[] {instanceId, instanceId, attempt, limit}
                        : new Object[] {instanceId, instanceId, attempt, stream, limit}));
        Collections.reverse(chunks);
        return chunks;
    }

    private static LogLine map(Tx.Row r) throws SQLException {
        return new LogLine(
                r.lng("id"),
                r.integer("attempt"),
                r.str("stream"),
                r.instant("at"),
                r.str("text"),
                r.nullableInt("shard_index"));
    }
}
