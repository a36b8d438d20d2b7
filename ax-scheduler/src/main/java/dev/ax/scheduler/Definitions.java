package dev.ax.scheduler;

import dev.ax.domain.task.TaskDefinition;
import dev.ax.store.StoreException;
import dev.ax.store.TaskStore;
import dev.ax.store.Tx;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Task definitions by (task, version). A version never changes once written, so caching it is
 * always correct; runs use the version they were created with, even after an edit.
 */
public final class Definitions {
    private record Key(long taskId, int version) {
    }

    private final TaskStore tasks;
    private final ConcurrentHashMap<Key, TaskDefinition> cache = new ConcurrentHashMap<>();

    public Definitions(TaskStore tasks) {
        this.tasks = tasks;
    }

    public TaskDefinition at(Tx tx, long taskId, int version) {
        Key key = new Key(taskId, version);
        TaskDefinition def = cache.get(key);
        if (def == null) {
            def = tasks.definitionAt(tx, taskId, version)
                    .orElseThrow(() -> new StoreException("no definition for task " + taskId + " version " + version));
            cache.put(key, def);
        }
        return def;
    }

    /** Seeds the cache with a definition just written (saves a read on the first run). */
    public void remember(long taskId, int version, TaskDefinition def) {
        cache.put(new Key(taskId, version), def);
    }
}
