package dev.ax.store;

import dev.ax.domain.task.TaskDefinition;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Task definitions parsed once per (task, version), for the whole node: every firing and every
 * completion needs a definition, and parsing and validating its JSON (cron included) costs more
 * CPU than reading it. A version's definition never changes once written (an edit writes a new
 * version; a pause writes one with the same text), so a hit by (task, version) needs no read.
 * A row read with its text is checked against the text's hash as well, which costs nothing next
 * to a parse and keeps a database rebuilt under a running node from serving another's text.
 *
 * <p>It holds only what is committed: an entry is added when the transaction that read or wrote
 * it commits. A version written by a transaction that rolled back is taken again by the next edit
 * (or test run) with other text, and must not be served for it.
 */
final class DefinitionCache {
    /** Far more task versions than any fleet keeps hot; past it the cache starts again (rare and cheap). */
    static final int MAX = 50_000;

    private record Key(long taskId, int version) {}

    private record Entry(TaskDefinition definition, int textHash) {}

    private final ConcurrentHashMap<Key, Entry> entries = new ConcurrentHashMap<>();

    /** The definition of a version parsed before, or null. */
    TaskDefinition get(long taskId, int version) {
        Entry e = entries.get(new Key(taskId, version));
        return e == null ? null : e.definition();
    }

    /** The definition stored as {@code text}, parsed unless this very text was parsed before. */
    TaskDefinition parse(Tx tx, long taskId, int version, String text) {
        Key key = new Key(taskId, version);
        int hash = text.hashCode();
        Entry e = entries.get(key);
        if (e == null || e.textHash() != hash) {
            Entry parsed = new Entry(TaskStore.parse(text), hash);
            tx.afterCommit(() -> put(key, parsed));
            return parsed.definition();
        }
        return e.definition();
    }

    /** A definition this transaction wrote as {@code text}: once committed, its first run reads nothing. */
    void remember(Tx tx, long taskId, int version, TaskDefinition def, String text) {
        Key key = new Key(taskId, version);
        Entry e = new Entry(def, text.hashCode());
        tx.afterCommit(() -> put(key, e));
    }

    private void put(Key key, Entry e) {
        if (entries.size() >= MAX) {
            entries.clear();
        }
        entries.put(key, e);
    }
}
