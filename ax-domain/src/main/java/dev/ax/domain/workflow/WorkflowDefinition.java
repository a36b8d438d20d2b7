package dev.ax.domain.workflow;

import dev.ax.domain.task.Trigger;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Deque;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * A workflow: tasks (nodes) joined by edges into a directed acyclic graph, with one trigger.
 * Built only by {@link WorkflowCodec}, which has checked that the graph is acyclic and every
 * edge names a node.
 *
 * @param trigger when the workflow runs by itself; an {@code event} trigger means only by hand
 */
public record WorkflowDefinition(
        String name, String description, Trigger trigger, List<Node> nodes, List<Edge> edges, String team) {
    /** A node runs one task; its name is unique in the workflow (one task may appear under two names). */
    public record Node(String name, String task, TriggerRule rule) {}

    public record Edge(String from, String to) {}

    public WorkflowDefinition {
        nodes = List.copyOf(nodes);
        edges = List.copyOf(edges);
    }

    /** A workflow of no team. */
    public WorkflowDefinition(String name, String description, Trigger trigger, List<Node> nodes, List<Edge> edges) {
        this(name, description, trigger, nodes, edges, null);
    }

    public Node node(String name) {
        return nodes.stream()
                .filter(n -> n.name().equals(name))
                .findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no node " + name + " in workflow " + this.name));
    }

    public boolean hasNode(String name) {
        return nodes.stream().anyMatch(n -> n.name().equals(name));
    }

    /** The nodes with an edge into {@code node}, in edge order. */
    public List<String> upstream(String node) {
        return edges.stream()
                .filter(e -> e.to().equals(node))
                .map(Edge::from)
                .distinct()
                .toList();
    }

    public List<String> downstream(String node) {
        return edges.stream()
                .filter(e -> e.from().equals(node))
                .map(Edge::to)
                .distinct()
                .toList();
    }

    /** The given nodes and everything reachable from them, in topological order. */
    public List<String> withDescendants(Collection<String> from) {
        Set<String> seen = new LinkedHashSet<>();
        Deque<String> todo = new ArrayDeque<>(from);
        while (!todo.isEmpty()) {
            String n = todo.pop();
            if (seen.add(n)) {
                todo.addAll(downstream(n));
            }
        }
        return topologicalOrder().stream().filter(seen::contains).toList();
    }

    /** Nodes ordered so that every edge goes forward; ties keep the order of {@link #nodes}. */
    public List<String> topologicalOrder() {
        Map<String, Integer> depth = depths();
        List<String> order = new ArrayList<>(nodes.stream().map(Node::name).toList());
        order.sort((a, b) -> Integer.compare(depth.get(a), depth.get(b)));
        return order;
    }

    /** The length of the longest path from a first node to each node: the column it is drawn in. */
    public Map<String, Integer> depths() {
        Map<String, Integer> depth = new LinkedHashMap<>();
        for (Node n : nodes) {
            depth(n.name(), depth);
        }
        return depth;
    }

    private int depth(String node, Map<String, Integer> memo) {
        Integer known = memo.get(node);
        if (known != null) {
            return known;
        }
        int d = 0;
        for (String u : upstream(node)) {
            d = Math.max(d, depth(u, memo) + 1);
        }
        memo.put(node, d);
        return d;
    }

    /**
     * A cycle among the nodes, as the path that closes it ({@code [a, b, c, a]}), or empty. Used
     * by the codec before a definition exists, hence static over plain names and edges.
     */
    public static Optional<List<String>> findCycle(List<String> nodes, List<Edge> edges) {
        Map<String, List<String>> out = new HashMap<>();
        for (Edge e : edges) {
            out.computeIfAbsent(e.from(), k -> new ArrayList<>()).add(e.to());
        }
        Map<String, Integer> color = new HashMap<>(); // absent: unvisited, 1: on the path, 2: done
        for (String start : nodes) {
            if (color.containsKey(start)) {
                continue;
            }
            // Iterative DFS keeping the current path, so the cycle can be named as found.
            Deque<String> path = new ArrayDeque<>();
            Deque<Iterator<String>> its = new ArrayDeque<>();
            path.addLast(start);
            its.addLast(out.getOrDefault(start, List.of()).iterator());
            color.put(start, 1);
            while (!path.isEmpty()) {
                Iterator<String> it = its.peekLast();
                if (it.hasNext()) {
                    String next = it.next();
                    Integer c = color.get(next);
                    if (c == null) {
                        color.put(next, 1);
                        path.addLast(next);
                        its.addLast(out.getOrDefault(next, List.of()).iterator());
                    } else if (c == 1) {
                        List<String> cycle = new ArrayList<>();
                        boolean in = false;
                        for (String p : path) {
                            in = in || p.equals(next);
                            if (in) {
                                cycle.add(p);
                            }
                        }
                        cycle.add(next);
                        return Optional.of(cycle);
                    }
                } else {
                    color.put(path.removeLast(), 2);
                    its.removeLast();
                }
            }
        }
        return Optional.empty();
    }
}
