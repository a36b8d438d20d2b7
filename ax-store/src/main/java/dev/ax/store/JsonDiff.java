package dev.ax.store;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;

/** The difference between two JSON trees as a list of {@code {path, from, to}}: what an auditor reads. */
public final class JsonDiff {
    private JsonDiff() {}

    public static List<Map<String, Object>> diff(Map<String, Object> before, Map<String, Object> after) {
        Map<String, Object> a = flatten(before);
        Map<String, Object> b = flatten(after);
        TreeSet<String> paths = new TreeSet<>(a.keySet());
        paths.addAll(b.keySet());
        List<Map<String, Object>> out = new ArrayList<>();
        for (String path : paths) {
            Object from = a.get(path);
            Object to = b.get(path);
            if (!Objects.equals(from, to)) {
                Map<String, Object> change = new LinkedHashMap<>();
                change.put("path", path);
                change.put("from", from);
                change.put("to", to);
                out.add(change);
            }
        }
        return out;
    }

    private static Map<String, Object> flatten(Map<String, Object> tree) {
        Map<String, Object> out = new LinkedHashMap<>();
        if (tree != null) {
            walk("", tree, out);
        }
        return out;
    }

    @SuppressWarnings("unchecked")
    private static void walk(String prefix, Object node, Map<String, Object> out) {
        if (node instanceof Map<?, ?> map) {
            if (map.isEmpty() && !prefix.isEmpty()) {
                out.put(prefix, Map.of());
            }
            ((Map<String, Object>) map).forEach((k, v) -> walk(prefix.isEmpty() ? k : prefix + "." + k, v, out));
        } else if (node instanceof List<?> list) {
            // Lists are compared whole: "notifyOnFailure changed" reads better than index-by-index noise.
            out.put(prefix, list);
        } else {
            out.put(prefix, node);
        }
    }
}
