package dev.ax.domain.task;

import static dev.ax.domain.task.JsonReader.path;

import dev.ax.domain.template.Target;
import dev.ax.domain.template.Templates;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * A task's {@code action} (shell, http or sdk; an approval's {@code preview} too), validated with field paths, and
 * back to JSON. Every template in it is checked for where its text lands ({@link Target}): a command, a URL, a
 * header, an environment value, a body by its content type.
 */
final class ActionCodec {
    private static final Pattern ENV_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");
    /** The executor sets AX_TASK_NAME, AX_INSTANCE_ID, ... itself; a task must not shadow them. */
    private static final String RESERVED_ENV_PREFIX = "AX_";

    private static final Set<String> SHELL_FIELDS = Set.of("type", "command", "env", "workingDir", "group");
    /** Action types that later versions add: named so that users learn to upgrade, not that they typed wrong. */
    private static final Set<String> HTTP_FIELDS = Set.of("type", "method", "url", "headers", "body", "async", "group");

    private static final Set<String> SDK_FIELDS = Set.of("type", "handler", "group");
    private static final Set<String> HTTP_METHODS = Set.of("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD");

    private ActionCodec() {}

    static Action read(JsonReader in, Object value, String field) {
        if (value == null) {
            in.error(field, "is required");
            return null;
        }
        Map<String, Object> a = in.object(value, field);
        if (a == null) {
            return null;
        }
        String type = in.string(in.required(a, field, "type"), field + ".type");
        if (type == null) {
            return null;
        }
        return switch (type) {
            case "shell" -> shell(in, a, field);
            case "http" -> http(in, a, field);
            case "sdk" -> sdk(in, a, field);
            default -> {
                in.error(field + ".type", "unknown action type '" + type + "'; expected shell, http or sdk");
                yield null;
            }
        };
    }

    private static Action.Http http(JsonReader in, Map<String, Object> a, String field) {
        in.rejectUnknown(a, field, HTTP_FIELDS);
        String method = a.get("method") == null ? "GET" : in.string(a.get("method"), field + ".method");
        if (method != null) {
            method = method.strip().toUpperCase(Locale.ROOT);
            if (!HTTP_METHODS.contains(method)) {
                in.error(field + ".method", "must be one of GET, POST, PUT, PATCH, DELETE, HEAD");
            }
        }
        String url = in.nonBlank(in.required(a, field, "url"), field + ".url");
        if (url != null) {
            templates(in, url, field + ".url", Target.URL);
            if (!url.startsWith("http://") && !url.startsWith("https://") && !url.startsWith("{{")) {
                in.error(field + ".url", "must start with http:// or https://");
            }
        }
        Map<String, String> headers = new LinkedHashMap<>();
        Map<String, Object> rawHeaders =
                a.get("headers") == null ? null : in.object(a.get("headers"), field + ".headers");
        if (rawHeaders != null) {
            rawHeaders.forEach((k, v) -> {
                String h = in.string(v, path(field + ".headers", k));
                if (h != null) {
                    templates(in, h, path(field + ".headers", k), Target.HEADER);
                    headers.put(k, h);
                }
            });
        }
        Object body = a.get("body");
        if (body instanceof String b) {
            templates(in, b, field + ".body", Target.ofBody(Action.Http.contentType(headers), b));
        } else if (body instanceof Map<?, ?> || body instanceof List<?>) {
            bodyTemplates(in, body, field + ".body");
        } else if (body != null) {
            in.error(field + ".body", "must be a string (a template) or a JSON object or array");
        }
        Boolean async = in.bool(a.get("async"), field + ".async");
        String group = a.get("group") == null
                ? Action.DEFAULT_GROUP
                : TaskDefinitionCodec.name(in, a.get("group"), field + ".group");
        return new Action.Http(
                method, url, headers, body == null ? null : JsonReader.freeze(body), async != null && async, group);
    }

    private static Action.Sdk sdk(JsonReader in, Map<String, Object> a, String field) {
        in.rejectUnknown(a, field, SDK_FIELDS);
        String handler = TaskDefinitionCodec.name(in, in.required(a, field, "handler"), field + ".handler");
        String group = a.get("group") == null
                ? Action.DEFAULT_GROUP
                : TaskDefinitionCodec.name(in, a.get("group"), field + ".group");
        return new Action.Sdk(handler, group);
    }

    private static Action.Shell shell(JsonReader in, Map<String, Object> a, String field) {
        in.rejectUnknown(a, field, SHELL_FIELDS);
        String command = in.nonBlank(in.required(a, field, "command"), field + ".command");
        if (command != null) {
            if (command.getBytes(StandardCharsets.UTF_8).length > TaskDefinitionCodec.MAX_COMMAND_BYTES) {
                in.error(
                        field + ".command",
                        "must be at most " + TaskDefinitionCodec.MAX_COMMAND_BYTES
                                + " bytes (64 KiB); put a longer script in a file and run that");
            }
            templates(in, command, field + ".command", Target.COMMAND);
        }
        Map<String, String> env = env(in, a.get("env"), field + ".env");
        String workingDir = in.nonBlank(a.get("workingDir"), field + ".workingDir");
        if (workingDir != null) {
            templates(in, workingDir, field + ".workingDir", Target.PATH);
        }
        String group = a.get("group") == null
                ? Action.DEFAULT_GROUP
                : TaskDefinitionCodec.name(in, a.get("group"), field + ".group");
        return new Action.Shell(command, env, workingDir, group);
    }

    private static Map<String, String> env(JsonReader in, Object value, String envField) {
        Map<String, Object> raw = in.object(value, envField);
        Map<String, String> env = new LinkedHashMap<>();
        if (raw == null) {
            return env;
        }
        raw.forEach((key, v) -> {
            String field = path(envField, key);
            if (!ENV_NAME.matcher(key).matches()) {
                in.error(field, "environment variable names must match [A-Za-z_][A-Za-z0-9_]*");
            } else if (key.startsWith(RESERVED_ENV_PREFIX)) {
                in.error(field, "names starting with AX_ are reserved for the variables AX sets itself");
            }
            if (v == null) {
                // Unset or empty? Ambiguous, so ask for a string.
                in.error(field, "must be a string");
                return;
            }
            String s = in.string(v, field);
            if (s != null) {
                templates(in, s, field, Target.ENV);
                env.put(key, s);
            }
        });
        return env;
    }

    static Map<String, Object> toJson(Action action) {
        Map<String, Object> a = new LinkedHashMap<>();
        a.put("type", action.type());
        switch (action) {
            case Action.Shell s -> {
                a.put("command", s.command());
                a.put("env", new LinkedHashMap<>(new TreeMap<>(s.env())));
                a.put("workingDir", s.workingDir());
                a.put("group", s.group());
            }
            case Action.Http h -> {
                a.put("method", h.method());
                a.put("url", h.url());
                a.put("headers", new LinkedHashMap<>(new TreeMap<>(h.headers())));
                a.put("body", JsonReader.thaw(h.body()));
                a.put("async", h.async());
                a.put("group", h.group());
            }
            case Action.Sdk k -> {
                a.put("handler", k.handler());
                a.put("group", k.group());
            }
        }
        return a;
    }

    /** Every problem of a template becomes an error on its field, checked at save time rather than at 2 a.m. */
    static void templates(JsonReader in, String template, String field, Target target) {
        for (String problem : Templates.problems(template, target)) {
            in.error(field, problem);
        }
        in.usesParameters(field, Templates.parameters(template));
    }

    /** The string values of an object or array body: each goes into the JSON the executor sends, escaped by the writer. */
    private static void bodyTemplates(JsonReader in, Object node, String field) {
        switch (node) {
            case String s -> templates(in, s, field, Target.TEXT);
            case Map<?, ?> m -> m.forEach((k, v) -> bodyTemplates(in, v, path(field, String.valueOf(k))));
            case List<?> l -> {
                for (int i = 0; i < l.size(); i++) {
                    bodyTemplates(in, l.get(i), field + "[" + i + "]");
                }
            }
            case null, default -> {}
        }
    }
}
