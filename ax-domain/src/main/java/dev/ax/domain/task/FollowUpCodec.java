package dev.ax.domain.task;

import static dev.ax.domain.task.JsonReader.path;

import dev.ax.domain.template.Target;
import java.net.URI;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/** {@code policy.onFailedActions}: a list of {@link FollowUp}s, validated with field paths. */
final class FollowUpCodec {
    static final String FIELD = "policy.onFailedActions";
    static final int MAX_FOLLOW_UPS = 20;

    private FollowUpCodec() {}

    static List<FollowUp> read(JsonReader in, Object value) {
        List<FollowUp> out = new ArrayList<>();
        List<Object> raw = in.array(value, FIELD);
        if (raw == null) {
            return out;
        }
        if (raw.size() > MAX_FOLLOW_UPS) {
            in.error(FIELD, "at most " + MAX_FOLLOW_UPS + " follow-ups");
        }
        for (int i = 0; i < raw.size(); i++) {
            FollowUp f = one(in, raw.get(i), path(FIELD, i));
            if (f != null) {
                out.add(f);
            }
        }
        return out;
    }

    private static FollowUp one(JsonReader in, Object value, String field) {
        Map<String, Object> m = in.object(value, field);
        if (m == null) {
            return null;
        }
        String type = in.string(in.required(m, field, "type"), path(field, "type"));
        if (type == null) {
            return null;
        }
        return switch (type) {
            case "trigger" -> {
                in.rejectUnknown(m, field, Set.of("type", "taskName", "params"));
                String task = TaskDefinitionCodec.name(in, in.required(m, field, "taskName"), path(field, "taskName"));
                Map<String, String> params = templateMap(in, m.get("params"), path(field, "params"));
                yield task == null ? null : new FollowUp.TriggerTask(task, params);
            }
            case "pause" -> {
                in.rejectUnknown(m, field, Set.of("type", "tasks"));
                List<Object> names = in.array(in.required(m, field, "tasks"), path(field, "tasks"));
                List<String> tasks = new ArrayList<>();
                if (names != null) {
                    if (names.isEmpty()) {
                        in.error(path(field, "tasks"), "must name at least one task");
                    }
                    for (int i = 0; i < names.size(); i++) {
                        String n = TaskDefinitionCodec.name(in, names.get(i), path(path(field, "tasks"), i));
                        if (n != null) {
                            tasks.add(n);
                        }
                    }
                }
                yield new FollowUp.PauseTasks(tasks);
            }
            case "webhook" -> {
                in.rejectUnknown(m, field, Set.of("type", "url", "headers"));
                String url = in.nonBlank(in.required(m, field, "url"), path(field, "url"));
                if (url != null && !isHttpUrl(url)) {
                    in.error(path(field, "url"), "must be an absolute http:// or https:// URL");
                }
                Map<String, String> headers = stringMap(in, m.get("headers"), path(field, "headers"));
                yield url == null ? null : new FollowUp.Webhook(url, headers);
            }
            default -> {
                in.error(
                        path(field, "type"),
                        "unknown follow-up type '" + type + "'; expected trigger, pause or webhook");
                yield null;
            }
        };
    }

    static List<Object> toJson(List<FollowUp> followUps) {
        List<Object> out = new ArrayList<>();
        for (FollowUp f : followUps) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("type", f.type());
            switch (f) {
                case FollowUp.TriggerTask t -> {
                    m.put("taskName", t.taskName());
                    m.put("params", new TreeMap<>(t.params()));
                }
                case FollowUp.PauseTasks p -> m.put("tasks", new ArrayList<>(p.tasks()));
                case FollowUp.Webhook w -> {
                    m.put("url", w.url());
                    m.put("headers", new TreeMap<>(w.headers()));
                }
            }
            out.add(m);
        }
        return out;
    }

    private static Map<String, String> templateMap(JsonReader in, Object value, String field) {
        Map<String, String> out = stringMap(in, value, field);
        out.forEach((k, v) -> ActionCodec.templates(in, v, path(field, k), Target.KEY));
        return out;
    }

    private static Map<String, String> stringMap(JsonReader in, Object value, String field) {
        Map<String, String> out = new LinkedHashMap<>();
        if (value == null) {
            return out;
        }
        Map<String, Object> m = in.object(value, field);
        if (m == null) {
            return out;
        }
        m.forEach((k, v) -> {
            String s = in.string(v, path(field, k));
            if (s != null) {
                out.put(k, s);
            }
        });
        return out;
    }

    private static boolean isHttpUrl(String url) {
        try {
            URI u = URI.create(url);
            return ("http".equals(u.getScheme()) || "https".equals(u.getScheme())) && u.getHost() != null;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }
}
