package dev.ax.scheduler;

import dev.ax.store.AuditStore.AuditRow;
import dev.ax.store.AuditStore.Entry;
import dev.ax.store.AuditStore.Filter;
import dev.ax.store.Store;
import java.util.Collections;
import java.util.List;

/**
 * The audit log: one entry per action a person or a machine took through the API or the console — what they
 * changed, what was refused, each log-in — written before the caller is answered. Entries of requests answered
 * at the same moment share one transaction ({@link GroupCommit}): under a burst of triggers the log costs a
 * fraction of a commit per request, and a caller told "done" can find its entry.
 */
public final class AuditLog {
    /** Batches written at once, and the most entries in one. */
    private static final int WRITERS = 2;

    private static final int MAX_BATCH = 500;

    private final Store store;
    private final GroupCommit<Entry, Boolean> writes;

    AuditLog(Store store) {
        this.store = store;
        this.writes = new GroupCommit<>(this::write, WRITERS, MAX_BATCH);
    }

    /** Records one action; returns once it is committed. */
    public void record(Entry entry) {
        writes.submit(entry);
    }

    /** Newest first. */
    public List<AuditRow> list(Filter filter) {
        return store.tx(tx -> store.audit().list(tx, filter));
    }

    private List<Boolean> write(List<Entry> batch) {
        store.tx(tx -> {
            store.audit().add(tx, batch);
            return null;
        });
        return Collections.nCopies(batch.size(), Boolean.TRUE);
    }
}
