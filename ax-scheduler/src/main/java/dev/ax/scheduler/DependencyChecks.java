package dev.ax.scheduler;

import dev.ax.domain.policy.DependencyGraph;
import dev.ax.domain.task.Dependency;
import dev.ax.domain.task.FieldError;
import dev.ax.domain.task.TaskDefinition;
import dev.ax.domain.task.ValidationException;
import dev.ax.store.Store;
import dev.ax.store.TaskRow;
import dev.ax.store.Tx;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What {@code dependsOn} needs from the other tasks, checked when a task is saved (in the saving
 * transaction, before anything is written): every named task exists, and no cycle forms. Also
 * the graph a cascade backfill walks.
 */
final class DependencyChecks {
    private static final int PAGE = 500;

    private DependencyChecks() {}

    /** Every stored task's upstream task names (its own previous slot aside). */
    static Map<String, List<String>> graph(Tx tx, Store store) {
        Map<String, List<String>> g = new HashMap<>();
        String after = "";
        List<TaskRow> page;
        do {
            page = store.tasks().list(tx, after, null, PAGE);
            for (TaskRow t : page) {
                g.put(t.name(), upstreams(t.definition()));
                after = t.name();
            }
        } while (page.size() == PAGE);
        return g;
    }

    static List<String> upstreams(TaskDefinition def) {
        return def.dependencies().dependsOn().stream()
                .filter(d -> d.scope() != Dependency.Scope.PREVIOUS_SLOT)
                .map(Dependency::task)
                .distinct()
                .toList();
    }

    /** What {@code ax_task_dependency} stores for a task: every task it waits for, its own name for previousSlot. */
    static List<String> edges(TaskDefinition def) {
        return def.dependencies().dependsOn().stream()
                .map(Dependency::task)
                .distinct()
                .toList();
    }

    /** Throws a 400 naming the field when {@code def}'s dependencies name a missing task or close a cycle. */
    static void check(Tx tx, Store store, TaskDefinition def) {
        if (def.dependencies().isEmpty()) {
            return;
        }
        Map<String, List<String>> g = graph(tx, store);
        List<FieldError> errors = new ArrayList<>();
        List<Dependency> deps = def.dependencies().dependsOn();
        for (int i = 0; i < deps.size(); i++) {
            Dependency d = deps.get(i);
            if (d.scope() != Dependency.Scope.PREVIOUS_SLOT && !g.containsKey(d.task())) {
                errors.add(
                        new FieldError("dependsOn[" + i + "].task", "no task named " + d.task() + "; create it first"));
            }
        }
        if (!errors.isEmpty()) {
            throw new ValidationException(errors);
        }
        g.put(def.taskName(), upstreams(def));
        DependencyGraph.cycle(def.taskName(), g).ifPresent(cycle -> {
            throw new ValidationException(
                    "dependsOn",
                    "dependency cycle: " + String.join(" → ", cycle)
                            + " (a task may wait for its own previous run only with scope previousSlot)");
        });
    }

    /** The tasks whose current definition waits for {@code name}. */
    static List<String> dependentsOf(Tx tx, Store store, String name) {
        List<String> out = new ArrayList<>();
        graph(tx, store).forEach((t, ups) -> {
            if (!t.equals(name) && ups.contains(name)) {
                out.add(t);
            }
        });
        return out.stream().sorted().toList();
    }
}
