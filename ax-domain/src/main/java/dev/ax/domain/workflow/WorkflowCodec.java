package dev.ax.domain.workflow;

import dev.ax.domain.task.FieldError;
import dev.ax.domain.task.JsonReader;
import dev.ax.domain.task.TaskDefinitionCodec;
import dev.ax.domain.task.Trigger;
import dev.ax.domain.task.ValidationException;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;
import java.util.regex.Pattern;

/**
 * The JSON of a workflow, validated as a pure function (JSON in, definition or every error out):
 *
 * <pre>{@code
 * { "name": "nightly",
 *   "trigger": { "type": "cron", "expression": "0 2 * * *", "timezone": "Asia/Shanghai" },
 *   "nodes": [ { "name": "extract", "task": "sync_layer1" },
 *              { "name": "report",  "task": "daily_report", "triggerRule": "allSuccess" } ],
 *   "edges": [ { "from": "extract", "to": "report" } ] }
 * }</pre>
 *
 * {@code trigger} is optional (absent: an {@code event} trigger, run only by hand or through the
 * API). Refused, with the field: unknown fields, a bad name, duplicate node names, a node whose
 * task does not exist, an edge naming an unknown node, a self-edge, a cycle (named:
 * {@code cycle: a → b → c → a}), a {@code oneFailed} node without upstream nodes.
 */
public final class WorkflowCodec {
    public static final int MAX_NODES = 200;
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,63}");
    private static final Set<String> ROOT_FIELDS = Set.of("name", "description", "trigger", "nodes", "edges", "team");
    private static final Set<String> NODE_FIELDS = Set.of("name", "task", "triggerRule");
    private static final Set<String> EDGE_FIELDS = Set.of("from", "to");

    private WorkflowCodec() {}

    /** @param taskExists whether a task of that name exists (nodes may only name existing tasks) */
    public static WorkflowDefinition parse(Object json, Predicate<String> taskExists) {
        List<FieldError> errors = new ArrayList<>();
        if (!(json instanceof Map<?, ?> raw)) {
            throw new ValidationException("", "a workflow is a JSON object with name, nodes and edges");
        }
        Map<String, Object> root = strings(raw);
        root.keySet().stream()
                .filter(k -> !ROOT_FIELDS.contains(k))
                .sorted()
                .forEach(k -> errors.add(new FieldError(
                        k, "unknown field; expected one of name, description, team, trigger, nodes, edges")));
        String name = name(root.get("name"), "name", errors);
        Object d = root.get("description");
        if (d != null && !(d instanceof String)) {
            errors.add(new FieldError("description", "must be a string"));
        }
        String team = null;
        if (root.get("team") != null) {
            JsonReader in = new JsonReader();
            team = TaskDefinitionCodec.name(in, root.get("team"), "team");
            errors.addAll(in.errors());
        }
        Trigger trigger = new Trigger.Event(ZoneOffset.UTC);
        if (root.get("trigger") != null) {
            try {
                trigger = TaskDefinitionCodec.parseTrigger(root.get("trigger"));
            } catch (ValidationException e) {
                errors.addAll(e.errors());
            }
        }
        List<WorkflowDefinition.Node> nodes = nodes(root.get("nodes"), taskExists, errors);
        List<WorkflowDefinition.Edge> edges = edges(root.get("edges"), nodes, errors);
        List<String> names = nodes.stream().map(WorkflowDefinition.Node::name).toList();
        Optional<List<String>> cycle = WorkflowDefinition.findCycle(names, edges);
        cycle.ifPresent(c -> errors.add(new FieldError("edges", "cycle: " + String.join(" → ", c))));
        if (cycle.isEmpty()) {
            for (int i = 0; i < nodes.size(); i++) {
                WorkflowDefinition.Node n = nodes.get(i);
                if (n.rule() == TriggerRule.ONE_FAILED && edges.stream().noneMatch(e -> e.to().equals(n.name()))) {
                    errors.add(new FieldError(
                            "nodes[" + i + "].triggerRule",
                            "oneFailed needs upstream nodes to watch; " + n.name() + " has none"));
                }
            }
        }
        if (!errors.isEmpty()) {
            throw new ValidationException(errors);
        }
        return new WorkflowDefinition(name, (String) d, trigger, nodes, edges, team);
    }

    private static List<WorkflowDefinition.Node> nodes(
            Object value, Predicate<String> taskExists, List<FieldError> errors) {
        List<WorkflowDefinition.Node> nodes = new ArrayList<>();
        if (!(value instanceof List<?> list) || list.isEmpty()) {
            errors.add(new FieldError(
                    "nodes",
                    value == null ? "is required: a list of {name, task, triggerRule}" : "must be a non-empty list"));
            return nodes;
        }
        if (list.size() > MAX_NODES) {
            errors.add(new FieldError("nodes", "at most " + MAX_NODES + " nodes"));
            return nodes;
        }
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < list.size(); i++) {
            String field = "nodes[" + i + "]";
            if (!(list.get(i) instanceof Map<?, ?> raw)) {
                errors.add(new FieldError(field, "must be an object {name, task, triggerRule}"));
                continue;
            }
            Map<String, Object> n = strings(raw);
            n.keySet().stream()
                    .filter(k -> !NODE_FIELDS.contains(k))
                    .sorted()
                    .forEach(k -> errors.add(
                            new FieldError(field + "." + k, "unknown field; expected name, task, triggerRule")));
            String name = name(n.get("name"), field + ".name", errors);
            if (name != null && !seen.add(name)) {
                errors.add(new FieldError(field + ".name", "duplicate node name '" + name + "'"));
                name = null;
            }
            String task = n.get("task") instanceof String s ? s : null;
            if (task == null || task.isBlank()) {
                errors.add(new FieldError(field + ".task", "is required: the name of an existing task"));
            } else if (!taskExists.test(task)) {
                errors.add(new FieldError(field + ".task", "no task named '" + task + "'"));
            }
            TriggerRule rule = TriggerRule.ALL_SUCCESS;
            Object r = n.get("triggerRule");
            if (r != null) {
                rule = r instanceof String s ? TriggerRule.ofWire(s).orElse(null) : null;
                if (rule == null) {
                    errors.add(new FieldError(field + ".triggerRule", "must be allSuccess, allDone or oneFailed"));
                }
            }
            if (name != null && task != null && rule != null) {
                nodes.add(new WorkflowDefinition.Node(name, task, rule));
            }
        }
        return nodes;
    }

    private static List<WorkflowDefinition.Edge> edges(
            Object value, List<WorkflowDefinition.Node> nodes, List<FieldError> errors) {
        List<WorkflowDefinition.Edge> edges = new ArrayList<>();
        if (value == null) {
            return edges;
        }
        if (!(value instanceof List<?> list)) {
            errors.add(new FieldError("edges", "must be a list of {from, to}"));
            return edges;
        }
        Set<String> names =
                new HashSet<>(nodes.stream().map(WorkflowDefinition.Node::name).toList());
        Set<WorkflowDefinition.Edge> seen = new HashSet<>();
        for (int i = 0; i < list.size(); i++) {
            String field = "edges[" + i + "]";
            if (!(list.get(i) instanceof Map<?, ?> raw)) {
                errors.add(new FieldError(field, "must be an object {from, to}"));
                continue;
            }
            Map<String, Object> e = strings(raw);
            e.keySet().stream()
                    .filter(k -> !EDGE_FIELDS.contains(k))
                    .sorted()
                    .forEach(k -> errors.add(new FieldError(field + "." + k, "unknown field; expected from, to")));
            String from = endpoint(e.get("from"), field + ".from", names, errors);
            String to = endpoint(e.get("to"), field + ".to", names, errors);
            if (from != null && to != null) {
                if (from.equals(to)) {
                    errors.add(new FieldError(field, "cycle: " + from + " → " + from));
                } else if (seen.add(new WorkflowDefinition.Edge(from, to))) {
                    edges.add(new WorkflowDefinition.Edge(from, to));
                }
            }
        }
        return edges;
    }

    private static String endpoint(Object value, String field, Set<String> names, List<FieldError> errors) {
        if (!(value instanceof String s) || s.isBlank()) {
            errors.add(new FieldError(field, "is required: a node name"));
            return null;
        }
        if (!names.contains(s)) {
            errors.add(new FieldError(field, "no node named '" + s + "' in nodes"));
            return null;
        }
        return s;
    }

    private static String name(Object value, String field, List<FieldError> errors) {
        if (!(value instanceof String s) || s.isBlank()) {
            errors.add(new FieldError(field, "is required"));
            return null;
        }
        if (!NAME.matcher(s).matches()) {
            errors.add(new FieldError(
                    field, "must be 1 to 64 letters, digits, '_', '.' or '-', starting with a letter or digit"));
            return null;
        }
        return s;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> strings(Map<?, ?> raw) {
        return (Map<String, Object>) raw;
    }

    /** The canonical JSON of a definition: what is stored and what the API answers. */
    public static Map<String, Object> toJson(WorkflowDefinition def) {
        Map<String, Object> root = new LinkedHashMap<>();
        root.put("name", def.name());
        root.put("description", def.description());
        if (def.team() != null) {
            root.put("team", def.team());
        }
        root.put("trigger", TaskDefinitionCodec.triggerToJson(def.trigger()));
        List<Object> nodes = new ArrayList<>();
        for (WorkflowDefinition.Node n : def.nodes()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("name", n.name());
            m.put("task", n.task());
            m.put("triggerRule", n.rule().wireName());
            nodes.add(m);
        }
        root.put("nodes", nodes);
        List<Object> edges = new ArrayList<>();
        for (WorkflowDefinition.Edge e : def.edges()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("from", e.from());
            m.put("to", e.to());
            edges.add(m);
        }
        root.put("edges", edges);
        return root;
    }
}
