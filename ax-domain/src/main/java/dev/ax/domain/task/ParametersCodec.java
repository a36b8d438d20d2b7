package dev.ax.domain.task;

import static dev.ax.domain.task.JsonReader.path;

import dev.ax.domain.task.ParamSpec.Type;
import dev.ax.domain.template.Templates;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * The top-level {@code "params"} of a task: each parameter's declaration, validated with field paths
 * ({@code params.region.enum[1]}), and back to JSON. A declaration's own default must pass it.
 */
final class ParametersCodec {
    /** More than this many parameters is a form nobody fills in. */
    static final int MAX_PARAMS = 50;

    private static final Set<String> FIELDS =
            Set.of("type", "required", "default", "enum", "pattern", "min", "max", "description", "items");
    private static final Set<String> ITEM_FIELDS = Set.of("type", "enum", "pattern", "min", "max");

    private ParametersCodec() {}

    static Parameters read(JsonReader in, Object value) {
        if (value == null) {
            return Parameters.NONE;
        }
        Map<String, Object> raw = in.object(value, "params");
        if (raw == null) {
            return Parameters.NONE;
        }
        if (raw.size() > MAX_PARAMS) {
            in.error("params", "at most " + MAX_PARAMS + " parameters");
        }
        Map<String, ParamSpec> specs = new LinkedHashMap<>();
        raw.forEach((name, v) -> {
            String field = path("params", name);
            if (!Templates.isParameterName(name)) {
                in.error(field, "a parameter's name may hold only letters, digits, '_', '.' and '-' (at most 100)");
                return;
            }
            ParamSpec spec = spec(in, v, field, false);
            if (spec != null) {
                specs.put(name, spec);
            }
        });
        return new Parameters(specs);
    }

    private static ParamSpec spec(JsonReader in, Object value, String field, boolean item) {
        Map<String, Object> m = in.object(value, field);
        if (m == null) {
            if (value == null) {
                in.error(field, "must be an object such as {\"type\": \"date\", \"required\": true}");
            }
            return null;
        }
        in.rejectUnknown(m, field, item ? ITEM_FIELDS : FIELDS);
        int before = in.errors().size();
        Type type = type(in, m.get("type"), path(field, "type"));
        if (type == null) {
            return null;
        }
        boolean required = Boolean.TRUE.equals(in.bool(m.get("required"), path(field, "required")));
        String description = in.string(m.get("description"), path(field, "description"));
        if (description != null && description.length() > 500) {
            in.error(path(field, "description"), "must be at most 500 characters long");
        }
        String pattern = pattern(in, m.get("pattern"), path(field, "pattern"), type);
        BigDecimal min = bound(in, m.get("min"), path(field, "min"), type);
        BigDecimal max = bound(in, m.get("max"), path(field, "max"), type);
        if (min != null && max != null && min.compareTo(max) > 0) {
            in.error(path(field, "max"), "must not be less than min");
        }
        ParamSpec items = null;
        if (m.get("items") != null) {
            if (type != Type.ARRAY) {
                in.error(path(field, "items"), "only an array has items");
            } else {
                items = spec(in, m.get("items"), path(field, "items"), true);
            }
        }
        ParamSpec shape = new ParamSpec(type, required, null, List.of(), pattern, min, max, description, items);
        List<Object> allowed = allowed(in, m.get("enum"), path(field, "enum"), shape);
        Object defaultValue = null;
        if (m.get("default") != null) {
            if (required) {
                in.error(path(field, "default"), "a required parameter has no default: drop one or the other");
            }
            List<FieldError> problems = new ArrayList<>();
            defaultValue = Parameters.value(
                    path(field, "default"),
                    new ParamSpec(type, false, null, allowed, pattern, min, max, description, items),
                    m.get("default"),
                    problems);
            problems.forEach(p -> in.error(p.field(), p.reason()));
        }
        return in.errors().size() > before
                ? null
                : new ParamSpec(type, required, defaultValue, allowed, pattern, min, max, description, items);
    }

    private static Type type(JsonReader in, Object value, String field) {
        if (value == null) {
            return Type.STRING;
        }
        String name = in.string(value, field);
        if (name == null) {
            return null;
        }
        for (Type t : Type.values()) {
            if (t.wireName().equals(name)) {
                return t;
            }
        }
        in.error(
                field,
                "unknown type '" + name + "'; expected one of "
                        + String.join(
                                ", ",
                                Arrays.stream(Type.values()).map(Type::wireName).toList()));
        return null;
    }

    private static String pattern(JsonReader in, Object value, String field, Type type) {
        String pattern = in.string(value, field);
        if (pattern == null) {
            return null;
        }
        if (type != Type.STRING) {
            in.error(field, "only a string has a pattern");
            return null;
        }
        try {
            Pattern.compile(pattern);
            return pattern;
        } catch (PatternSyntaxException e) {
            in.error(field, "not a regular expression: " + e.getDescription());
            return null;
        }
    }

    /** min or max: a bound on a number, or on the length of a string or list. */
    private static BigDecimal bound(JsonReader in, Object value, String field, Type type) {
        if (value == null) {
            return null;
        }
        switch (type) {
            case INTEGER, NUMBER -> {
                List<FieldError> problems = new ArrayList<>();
                Object v = Parameters.value(
                        field,
                        new ParamSpec(Type.NUMBER, false, null, null, null, null, null, null, null),
                        value,
                        problems);
                problems.forEach(p -> in.error(p.field(), p.reason()));
                return (BigDecimal) v;
            }
            case STRING, ARRAY -> {
                Long n = in.integer(value, field, 0, Integer.MAX_VALUE);
                return n == null ? null : BigDecimal.valueOf(n);
            }
            default -> {
                in.error(field, "applies to numbers (their value) and to strings and arrays (their length) only");
                return null;
            }
        }
    }

    private static List<Object> allowed(JsonReader in, Object value, String field, ParamSpec shape) {
        if (value == null) {
            return List.of();
        }
        List<Object> raw = in.array(value, field);
        if (raw == null) {
            return List.of();
        }
        if (raw.isEmpty()) {
            in.error(field, "must list at least one value");
        }
        if (shape.type() == Type.ARRAY) {
            in.error(field, "an array's allowed values go in its items: {\"items\": {\"enum\": [...]}}");
            return List.of();
        }
        List<Object> allowed = new ArrayList<>();
        for (int i = 0; i < raw.size(); i++) {
            List<FieldError> problems = new ArrayList<>();
            Object v = raw.get(i) == null ? null : Parameters.value(path(field, i), shape, raw.get(i), problems);
            if (raw.get(i) == null) {
                in.error(path(field, i), "must not be null");
            }
            problems.forEach(p -> in.error(p.field(), p.reason()));
            if (v != null && allowed.contains(v)) {
                in.error(path(field, i), "is listed twice");
            } else if (v != null) {
                allowed.add(v);
            }
        }
        return allowed;
    }

    /**
     * With declarations, every parameter a template uses must be declared (a typo would otherwise fail each run);
     * a scheduled task's runs have no caller to give a required one.
     */
    static void checkUses(JsonReader in, Parameters params, Trigger trigger) {
        if (params.declared()) {
            Set<String> optional = new TreeSet<>();
            in.parameterUses()
                    .forEach((field, names) -> names.forEach(n -> {
                        ParamSpec spec = params.specs().get(n);
                        if (spec == null) {
                            in.error(
                                    field,
                                    "uses {{params." + n + "}}, which \"params\" does not declare; declared: "
                                            + String.join(", ", params.specs().keySet()));
                        } else if (!spec.required() && spec.defaultValue() == null) {
                            optional.add(n);
                        }
                    }));
            optional.forEach(
                    n -> in.warn("params." + n + " is used in a template but has neither a default nor \"required\":"
                            + " a run that does not give it is refused"));
        }
        if (trigger != null && trigger.isScheduled()) {
            params.specs().forEach((name, spec) -> {
                if (spec.required()) {
                    in.error(
                            "params." + name + ".required",
                            "a " + trigger.type() + " task's scheduled runs have no caller to give it;"
                                    + " give it a default instead");
                }
            });
        }
    }

    static Map<String, Object> toJson(Parameters parameters) {
        Map<String, Object> out = new LinkedHashMap<>();
        parameters.specs().forEach((name, spec) -> out.put(name, specJson(spec)));
        return out;
    }

    private static Map<String, Object> specJson(ParamSpec spec) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("type", spec.type().wireName());
        if (spec.required()) {
            m.put("required", true);
        }
        putIfSet(m, "default", spec.defaultValue());
        if (!spec.allowed().isEmpty()) {
            m.put("enum", spec.allowed());
        }
        putIfSet(m, "pattern", spec.pattern());
        putIfSet(m, "min", spec.min());
        putIfSet(m, "max", spec.max());
        putIfSet(m, "description", spec.description());
        if (spec.items() != null) {
            m.put("items", specJson(spec.items()));
        }
        return m;
    }

    private static void putIfSet(Map<String, Object> m, String key, Object value) {
        if (value != null) {
            m.put(key, value);
        }
    }
}
