package dev.ax.domain.policy;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The graph of {@code dependsOn} between tasks, as a map from a task's name to the names of the
 * tasks it waits for (a task's own previous slot is not an edge). Pure functions: a cycle through a
 * task (refused when saving), and a task's dependents in the order a cascade backfill creates them.
 */
public final class DependencyGraph {
    private DependencyGraph() {}

    /** A cycle through {@code start}, as the path {@code start → … → start}; empty if there is none. */
    public static Optional<List<String>> cycle(String start, Map<String, List<String>> upstreams) {
        Deque<String> path = new ArrayDeque<>();
        path.addLast(start);
        return walk(start, start, upstreams, path, new LinkedHashSet<>());
    }

    private static Optional<List<String>> walk(
            String start, String at, Map<String, List<String>> upstreams, Deque<String> path, Set<String> done) {
        for (String up : upstreams.getOrDefault(at, List.of())) {
            if (up.equals(at)) {
                continue;
            }
            if (up.equals(start)) {
                List<String> cycle = new ArrayList<>(path);
                cycle.add(start);
                return Optional.of(cycle);
            }
            if (done.add(up)) {
                path.addLast(up);
                Optional<List<String>> found = walk(start, up, upstreams, path, done);
                if (found.isPresent()) {
                    return found;
                }
                path.removeLast();
            }
        }
        return Optional.empty();
    }

    /**
     * Every task that waits for {@code task}, directly or through others, each after all of its
     * upstreams that are in the list (dependency order). {@code task} itself is not included.
     */
    public static List<String> dependents(String task, Map<String, List<String>> upstreams) {
        Set<String> reached = new LinkedHashSet<>();
        Deque<String> todo = new ArrayDeque<>(List.of(task));
        while (!todo.isEmpty()) {
            String at = todo.removeFirst();
            upstreams.forEach((t, ups) -> {
                if (!t.equals(at) && ups.contains(at) && !t.equals(task) && reached.add(t)) {
                    todo.addLast(t);
                }
            });
        }
        // Order: a task comes after every upstream of it that is also being cascaded.
        List<String> ordered = new ArrayList<>();
        Set<String> placed = new LinkedHashSet<>(List.of(task));
        while (ordered.size() < reached.size()) {
            boolean progress = false;
            for (String t : reached) {
                if (!placed.contains(t)
                        && upstreams.getOrDefault(t, List.of()).stream()
                                .filter(u -> !u.equals(t))
                                .allMatch(u -> placed.contains(u) || !reached.contains(u))) {
                    ordered.add(t);
                    placed.add(t);
                    progress = true;
                }
            }
            if (!progress) {
                throw new IllegalArgumentException("dependency cycle among " + reached);
            }
        }
        return ordered;
    }
}
