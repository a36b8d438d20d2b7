package dev.ax.domain.task;

import dev.ax.domain.schedule.CronSchedule;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
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

    private static final Set<String> ROOT_FIELDS = Set.of(
            "taskName",
            "description",
            "owner",
            "trigger",
            "action",
            "policy",
            "dependsOn",
            "dependencyPolicy",
            "environment",
            "params",
            "team");
    /** At most this many environment labels per task. */
    public static final int MAX_ENVIRONMENT_LABELS = 10;

    private static final Set<String> CRON_FIELDS = Set.of("type", "expression", "timezone");
    private static final Set<String> INTERVAL_FIELDS = Set.of("type", "intervalSeconds", "startAt", "timezone");
    private static final Set<String> EVENT_FIELDS = Set.of("type", "timezone");

    private TaskDefinitionCodec() {}

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
        String team = root.get("team") == null ? null : name(in, root.get("team"), "team");
        Trigger trigger = trigger(in, root.get("trigger"));
        Action action = ActionCodec.read(in, root.get("action"), "action");
        Policy policy =
                PolicyCodec.read(in, root.get("policy"), configuredChannels == null ? Set.of() : configuredChannels);
        DependencyPolicy dependencies =
                DependencyCodec.read(in, taskName, root.get("dependsOn"), root.get("dependencyPolicy"));
        List<String> environment = environment(in, root.get("environment"));
        Parameters params = ParametersCodec.read(in, root.get("params"));
        ParametersCodec.checkUses(in, params, trigger);
        if (in.hasErrors()) {
            throw new ValidationException(in.errors());
        }
        TaskDefinition def = new TaskDefinition(
                taskName, description, owner, trigger, action, policy, dependencies, environment, params, team);
        List<String> warnings = new ArrayList<>(in.warnings());
        warnings.addAll(SecretFields.warnings(def));
        return new ParsedTask(def, warnings);
    }

    /** An action as JSON, the way {@code action} spells it. */
    public static Map<String, Object> actionToJson(Action action) {
        return ActionCodec.toJson(action);
    }

    /** One follow-up as JSON, the way {@code policy.onFailedActions} spells it. */
    @SuppressWarnings("unchecked")
    public static Map<String, Object> followUpJson(FollowUp followUp) {
        return (Map<String, Object>) FollowUpCodec.toJson(List.of(followUp)).getFirst();
    }

    /**
     * The canonical JSON tree of {@code def}: keys in a fixed order, defaults written out, absent
     * optional values as JSON null. Environment variables are sorted by name, because the model
     * keeps them in a map without order and the stored form should not change between saves.
     */
    public static Map<String, Object> toJson(TaskDefinition def) {
        Map<String, Object> root = new LinkedHashMap<>();
        root.put("taskName", def.taskName());
        root.put("description", def.description());
        root.put("owner", def.owner());
        if (def.team() != null) {
            root.put("team", def.team());
        }
        root.put("trigger", triggerJson(def.trigger()));
        root.put("action", ActionCodec.toJson(def.action()));
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
        LinkedHashSet<String> labels = new LinkedHashSet<>();
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
                Long seconds = in.integer(
                        in.required(t, "trigger", "intervalSeconds"),
                        "trigger.intervalSeconds",
                        1,
                        MAX_INTERVAL_SECONDS);
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
            in.error(
                    "trigger.timezone",
                    "unknown time zone '" + id + "'; use an IANA zone id such as Asia/Shanghai or UTC");
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
            case Trigger.Event e -> {}
        }
        t.put("timezone", trigger.timezone().getId());
        return t;
    }

    // ---- shared ----

    /** A task or group name: 1-100 of [A-Za-z0-9_.-], starting with a letter or digit. */
    /** A plain name (a task, a group, a team, a token): letters, digits, '_', '.', '-'; an error on {@code field} otherwise. */
    public static String name(JsonReader in, Object value, String field) {
        String s = in.string(value, field);
        if (s == null) {
            return null;
        }
        if (s.isEmpty() || s.length() > MAX_NAME_LENGTH) {
            in.error(field, "must be 1 to " + MAX_NAME_LENGTH + " characters long");
            return null;
        }
        if (!NAME.matcher(s).matches()) {
            in.error(
                    field, "may contain only letters, digits, '_', '.' and '-', and must start with a letter or digit");
            return null;
        }
        return s;
    }
}
