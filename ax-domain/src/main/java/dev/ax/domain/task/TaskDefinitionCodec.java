package dev.ax.domain.task;

import static dev.ax.domain.task.JsonReader.path;

import dev.ax.domain.schedule.CronSchedule;
import dev.ax.domain.template.Target;
import dev.ax.domain.template.Templates;
import java.nio.charset.StandardCharsets;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * Task definitions from and to JSON trees (what Jackson's {@code readValue(json, Object.class)}
 * builds, and what it writes back). This module has no JSON library on purpose: the codec is pure
 * rules, and the API and CLI bring the parser.
 *
 * <p>{@link #parse} reports every error at once with its field path ({@code trigger.expression},
 * {@code policy.notifyOnFailure[1]}, {@code action.env.FOO}). {@link #toJson} writes the canonical
 * form, every default filled in, so that a stored definition shows what AX will do; parsing it
 * gives back an equal definition.
 */
public final class TaskDefinitionCodec {
    public static final int MAX_NAME_LENGTH = 100;
    public static final int MAX_COMMAND_BYTES = 64 * 1024;
    public static final long MAX_INTERVAL_SECONDS = 31_536_000; // one year
    public static final String DEFAULT_TIMEZONE = "UTC";

    /** Task and group names: they end up in URLs, metrics labels and file names, so keep them plain. */
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]*");
    private static final Pattern ENV_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");
    /** The executor sets AX_TASK_NAME, AX_INSTANCE_ID, ... itself; a task must not shadow them. */
    private static final String RESERVED_ENV_PREFIX = "AX_";

    private static final Set<String> ROOT_FIELDS = Set.of("taskName", "description", "owner", "trigger", "action", "policy",
            "dependsOn", "dependencyPolicy", "environment", "params");
    /** At most this many environment labels per task. */
    public static final int MAX_ENVIRONMENT_LABELS = 10;
    private static final Set<String> CRON_FIELDS = Set.of("type", "expression", "timezone");
    private static final Set<String> INTERVAL_FIELDS = Set.of("type", "intervalSeconds", "startAt", "timezone");
    private static final Set<String> EVENT_FIELDS = Set.of("type", "timezone");
    private static final Set<String> SHELL_FIELDS = Set.of("type", "command", "env", "workingDir", "group");
    /** Action types that later versions add: named so that users learn to upgrade, not that they typed wrong. */
    private static final Set<String> HTTP_FIELDS = Set.of("type", "method", "url", "headers", "body", "async", "group");
    private static final Set<String> SDK_FIELDS = Set.of("type", "handler", "group");
    private static final Set<String> HTTP_METHODS = Set.of("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD");

    private TaskDefinitionCodec() {
    }

    /**
     * Validates a JSON tree and builds the definition.
     *
     * @param configuredChannels the alert channels this server has; others named in
     *                           {@code policy.notifyOnFailure} are accepted with a warning, so
     *                           that a definition can be saved before its channel is set up
     * @throws ValidationException with every error found; errors about the document as a whole
     *                             (not an object) have the field {@code ""}
     */
    public static ParsedTask parse(Object json, Set<String> configuredChannels) {
        JsonReader in = new JsonReader();
        if (json == null) {
            throw new ValidationException("", "the task definition is missing");
        }
        Map<String, Object> root = in.object(json, "");
        if (root == null) {
            throw new ValidationException(in.errors());
        }
        in.rejectUnknown(root, "", ROOT_FIELDS);
        String taskName = name(in, in.required(root, "", "taskName"), "taskName");
        String description = in.string(root.get("description"), "description");
        String owner = in.string(root.get("owner"), "owner");
        Trigger trigger = trigger(in, root.get("trigger"));
        Action action = action(in, root.get("action"), "action");
        Policy policy = PolicyCodec.read(in, root.get("policy"), configuredChannels == null ? Set.of() : configuredChannels);
        DependencyPolicy dependencies = DependencyCodec.read(in, taskName, root.get("dependsOn"), root.get("dependencyPolicy"));
        List<String> environment = environment(in, root.get("environment"));
        Parameters params = ParametersCodec.read(in, root.get("params"));
        checkParameterUses(in, params, trigger);
        if (in.hasErrors()) {
            throw new ValidationException(in.errors());
        }
        TaskDefinition def = new TaskDefinition(taskName, description, owner, trigger, action, policy, dependencies, environment, params);
        List<String> warnings = new ArrayList<>(in.warnings());
        warnings.addAll(SecretFields.warnings(def));
        return new ParsedTask(def, warnings);
    }

    /**
     * The canonical JSON tree of {@code def}: keys in a fixed order, defaults written out, absent
     * optional values as JSON null. Environment variables are sorted by name, because the model
     * keeps them in a map without order and the stored form should not change between saves.
     */
    /** An action as JSON, the way {@code action} spells it. */
    public static Map<String, Object> actionToJson(Action action) {
        return actionJson(action);
    }

    /** One follow-up as JSON, the way {@code policy.onFailedActions} spells it. */
    @SuppressWarnings("unchecked")
    public static Map<String, Object> followUpJson(FollowUp followUp) {
        return (Map<String, Object>) FollowUpCodec.toJson(List.of(followUp)).getFirst();
    }

    public static Map<String, Object> toJson(TaskDefinition def) {
        Map<String, Object> root = new LinkedHashMap<>();
        root.put("taskName", def.taskName());
        root.put("description", def.description());
        root.put("owner", def.owner());
        root.put("trigger", triggerJson(def.trigger()));
        root.put("action", actionJson(def.action()));
        root.put("policy", PolicyCodec.toJson(def.policy()));
        DependencyCodec.write(root, def.dependencies());
        // Written only when set, so the stored form of the many tasks without labels (or parameters) stays as it was.
        if (!def.environment().isEmpty()) {
            root.put("environment", def.environment());
        }
        if (def.params().declared()) {
            root.put("params", ParametersCodec.toJson(def.params()));
        }
        return root;
    }

    /**
     * With declarations, every parameter a template uses must be declared (a typo would otherwise fail each run);
     * a scheduled task's runs have no caller to give a required one.
     */
    private static void checkParameterUses(JsonReader in, Parameters params, Trigger trigger) {
        if (params.declared()) {
            Set<String> optional = new TreeSet<>();
            in.parameterUses().forEach((field, names) -> names.forEach(n -> {
                ParamSpec spec = params.specs().get(n);
                if (spec == null) {
                    in.error(field, "uses {{params." + n + "}}, which \"params\" does not declare; declared: "
                            + String.join(", ", params.specs().keySet()));
                } else if (!spec.required() && spec.defaultValue() == null) {
                    optional.add(n);
                }
            }));
            optional.forEach(n -> in.warn("params." + n + " is used in a template but has neither a default nor \"required\":"
                    + " a run that does not give it is refused"));
        }
        if (trigger != null && trigger.isScheduled()) {
            params.specs().forEach((name, spec) -> {
                if (spec.required()) {
                    in.error("params." + name + ".required", "a " + trigger.type() + " task's scheduled runs have no caller to give it;"
                            + " give it a default instead");
                }
            });
        }
    }

    // ---- environment ----

    /**
     * {@code environment}: the executor labels a run needs, all of them ({@code ["prod"]} runs only on
     * executors labelled prod). Labels are names; duplicates are refused rather than silently merged.
     */
    private static List<String> environment(JsonReader in, Object value) {
        if (value == null) {
            return List.of();
        }
        if (!(value instanceof List<?> list)) {
            in.error("environment", "must be a list of executor labels, e.g. [\"prod\"]");
            return List.of();
        }
        if (list.size() > MAX_ENVIRONMENT_LABELS) {
            in.error("environment", "at most " + MAX_ENVIRONMENT_LABELS + " labels");
            return List.of();
        }
        java.util.LinkedHashSet<String> labels = new java.util.LinkedHashSet<>();
        for (int i = 0; i < list.size(); i++) {
            String field = "environment[" + i + "]";
            String label = name(in, list.get(i), field);
            if (label != null && !labels.add(label)) {
                in.error(field, "label '" + label + "' is listed twice");
            }
        }
        return List.copyOf(labels);
    }

    // ---- trigger ----

    /**
     * A trigger on its own, the way {@code trigger} spells it in a task: workflows have the same
     * trigger JSON. Errors are reported under {@code trigger.*}.
     */
    public static Trigger parseTrigger(Object value) {
        JsonReader in = new JsonReader();
        Trigger trigger = trigger(in, value);
        if (in.hasErrors()) {
            throw new ValidationException(in.errors());
        }
        return trigger;
    }

    /** A trigger as JSON, the way {@code trigger} spells it. */
    public static Map<String, Object> triggerToJson(Trigger trigger) {
        return triggerJson(trigger);
    }

    private static Trigger trigger(JsonReader in, Object value) {
        if (value == null) {
            in.error("trigger", "is required");
            return null;
        }
        Map<String, Object> t = in.object(value, "trigger");
        if (t == null) {
            return null;
        }
        String type = in.string(in.required(t, "trigger", "type"), "trigger.type");
        ZoneId zone = zone(in, t.get("timezone"));
        if (type == null) {
            return null; // without a type the other fields cannot be judged
        }
        switch (type) {
            case "cron" -> {
                in.rejectUnknown(t, "trigger", CRON_FIELDS);
                String expression = in.nonBlank(in.required(t, "trigger", "expression"), "trigger.expression");
                if (expression == null) {
                    return null;
                }
                expression = expression.strip();
                try {
                    // Still check the expression when the zone is wrong: both errors at once.
                    CronSchedule.parse(expression, zone == null ? ZoneOffset.UTC : zone);
                } catch (IllegalArgumentException e) {
                    in.error("trigger.expression", e.getMessage() == null ? "invalid cron expression" : e.getMessage());
                    return null;
                }
                return zone == null ? null : new Trigger.Cron(expression, zone);
            }
            case "interval" -> {
                in.rejectUnknown(t, "trigger", INTERVAL_FIELDS);
                Long seconds = in.integer(in.required(t, "trigger", "intervalSeconds"), "trigger.intervalSeconds",
                        1, MAX_INTERVAL_SECONDS);
                Instant startAt = instant(in, t.get("startAt"), "trigger.startAt");
                return seconds == null || zone == null ? null : new Trigger.Interval(seconds, startAt, zone);
            }
            case "event" -> {
                in.rejectUnknown(t, "trigger", EVENT_FIELDS);
                return zone == null ? null : new Trigger.Event(zone);
            }
            default -> {
                in.error("trigger.type", "unknown trigger type '" + type + "'; expected cron, interval or event");
                return null;
            }
        }
    }

    /** The trigger's zone; {@code null} only after an error (absent means UTC). */
    private static ZoneId zone(JsonReader in, Object value) {
        if (value == null) {
            return ZoneId.of(DEFAULT_TIMEZONE);
        }
        String id = in.string(value, "trigger.timezone");
        if (id == null) {
            return null;
        }
        try {
            return ZoneId.of(id);
        } catch (DateTimeException e) {
            in.error("trigger.timezone", "unknown time zone '" + id + "'; use an IANA zone id such as Asia/Shanghai or UTC");
            return null;
        }
    }

    private static Instant instant(JsonReader in, Object value, String field) {
        String text = in.string(value, field);
        if (text == null) {
            return null;
        }
        try {
            return Instant.parse(text); // accepts Z and offsets such as +08:00
        } catch (DateTimeParseException e) {
            in.error(field, "must be an ISO-8601 instant such as 2026-01-01T00:00:00Z");
            return null;
        }
    }

    private static Map<String, Object> triggerJson(Trigger trigger) {
        Map<String, Object> t = new LinkedHashMap<>();
        t.put("type", trigger.type());
        switch (trigger) {
            case Trigger.Cron c -> t.put("expression", c.expression());
            case Trigger.Interval i -> {
                t.put("intervalSeconds", i.intervalSeconds());
                t.put("startAt", i.startAt() == null ? null : i.startAt().toString());
            }
            case Trigger.Event e -> {
            }
        }
        t.put("timezone", trigger.timezone().getId());
        return t;
    }

    // ---- action ----

    static Action action(JsonReader in, Object value, String field) {
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
            method = method.strip().toUpperCase(java.util.Locale.ROOT);
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
        Map<String, Object> rawHeaders = a.get("headers") == null ? null : in.object(a.get("headers"), field + ".headers");
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
            templates(in, b, field + ".body", Target.ofBody(contentType(headers), b));
        } else if (body instanceof Map<?, ?> || body instanceof List<?>) {
            bodyTemplates(in, body, field + ".body");
        } else if (body != null) {
            in.error(field + ".body", "must be a string (a template) or a JSON object or array");
        }
        Boolean async = in.bool(a.get("async"), field + ".async");
        String group = a.get("group") == null ? Action.DEFAULT_GROUP : name(in, a.get("group"), field + ".group");
        return new Action.Http(method, url, headers, body == null ? null : JsonReader.freeze(body), async != null && async, group);
    }

    private static Action.Sdk sdk(JsonReader in, Map<String, Object> a, String field) {
        in.rejectUnknown(a, field, SDK_FIELDS);
        String handler = name(in, in.required(a, field, "handler"), field + ".handler");
        String group = a.get("group") == null ? Action.DEFAULT_GROUP : name(in, a.get("group"), field + ".group");
        return new Action.Sdk(handler, group);
    }

    private static Action.Shell shell(JsonReader in, Map<String, Object> a, String field) {
        in.rejectUnknown(a, field, SHELL_FIELDS);
        String command = in.nonBlank(in.required(a, field, "command"), field + ".command");
        if (command != null) {
            if (command.getBytes(StandardCharsets.UTF_8).length > MAX_COMMAND_BYTES) {
                in.error(field + ".command", "must be at most " + MAX_COMMAND_BYTES
                        + " bytes (64 KiB); put a longer script in a file and run that");
            }
            templates(in, command, field + ".command", Target.COMMAND);
        }
        Map<String, String> env = env(in, a.get("env"), field + ".env");
        String workingDir = in.nonBlank(a.get("workingDir"), field + ".workingDir");
        if (workingDir != null) {
            templates(in, workingDir, field + ".workingDir", Target.PATH);
        }
        String group = a.get("group") == null ? Action.DEFAULT_GROUP : name(in, a.get("group"), field + ".group");
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

    static Map<String, Object> actionJson(Action action) {
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

    // ---- shared ----

    /** A task or group name: 1-100 of [A-Za-z0-9_.-], starting with a letter or digit. */
    static String name(JsonReader in, Object value, String field) {
        String s = in.string(value, field);
        if (s == null) {
            return null;
        }
        if (s.isEmpty() || s.length() > MAX_NAME_LENGTH) {
            in.error(field, "must be 1 to " + MAX_NAME_LENGTH + " characters long");
            return null;
        }
        if (!NAME.matcher(s).matches()) {
            in.error(field, "may contain only letters, digits, '_', '.' and '-', and must start with a letter or digit");
            return null;
        }
        return s;
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
            case null, default -> { }
        }
    }

    /** The action's Content-Type header, whatever its case; null when it has none. */
    public static String contentType(Map<String, String> headers) {
        for (Map.Entry<String, String> h : headers.entrySet()) {
            if (h.getKey().equalsIgnoreCase("Content-Type")) {
                return h.getValue();
            }
        }
        return null;
    }
}
