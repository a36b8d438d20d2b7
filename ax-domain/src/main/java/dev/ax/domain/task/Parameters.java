package dev.ax.domain.task;

import dev.ax.domain.task.ParamSpec.Type;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * A task's declared trigger parameters ({@code "params"}), and the one check every way of starting a run
 * goes through ({@link #check}): the API, the CLI, the console, events, workflows, backfills, follow-ups,
 * canaries and test runs. A task that declares none takes any parameters, as before.
 */
public record Parameters(Map<String, ParamSpec> specs) {
    public static final Parameters NONE = new Parameters(Map.of());

    public Parameters {
        specs = Collections.unmodifiableMap(new LinkedHashMap<>(specs));
    }

    public boolean declared() {
        return !specs.isEmpty();
    }

    /**
     * The parameters a run gets: each given value checked against its declaration and written in its
     * type's canonical form ({@code "5"} for an integer becomes 5), then the defaults of those not given.
     * Without declarations, the given values as they are.
     *
     * @throws ValidationException naming {@code params.NAME} for every value that is undeclared, missing,
     *                             of the wrong type or outside what its declaration allows; nothing is partial
     */
    public Map<String, Object> check(Map<String, Object> given) {
        if (!declared()) {
            return given;
        }
        List<FieldError> errors = new ArrayList<>();
        Map<String, Object> out = new LinkedHashMap<>();
        given.forEach((name, value) -> {
            ParamSpec spec = specs.get(name);
            if (spec == null) {
                errors.add(new FieldError(
                        "params." + name, "is not declared; this task takes " + String.join(", ", specs.keySet())));
            } else if (value == null) {
                errors.add(new FieldError("params." + name, "must have a value (leave it out for the default)"));
            } else {
                Object v = value("params." + name, spec, value, errors);
                if (v != null) {
                    out.put(name, v);
                }
            }
        });
        specs.forEach((name, spec) -> {
            if (!given.containsKey(name)) {
                if (spec.required()) {
                    errors.add(new FieldError(
                            "params." + name,
                            "is required" + (spec.description() == null ? "" : ": " + spec.description())));
                } else if (spec.defaultValue() != null) {
                    out.put(name, spec.defaultValue());
                }
            }
        });
        if (!errors.isEmpty()) {
            throw new ValidationException(errors);
        }
        return out;
    }

    /** A stored run's parameters with the defaults of those it lacks, for rendering; nothing is refused here. */
    public Map<String, Object> withDefaults(Map<String, Object> given) {
        Map<String, Object> out = null;
        for (Map.Entry<String, ParamSpec> e : specs.entrySet()) {
            if (e.getValue().defaultValue() != null && !given.containsKey(e.getKey())) {
                out = out == null ? new LinkedHashMap<>(given) : out;
                out.put(e.getKey(), e.getValue().defaultValue());
            }
        }
        return out == null ? given : out;
    }

    /** {@code raw} in the canonical form of {@code spec}, or null after adding an error on {@code field}. */
    static Object value(String field, ParamSpec spec, Object raw, List<FieldError> errors) {
        Object v = typed(spec.type(), raw);
        if (v == null) {
            errors.add(new FieldError(field, "must be " + article(spec.type())));
            return null;
        }
        String problem = problem(spec, v);
        if (problem == null && spec.type() == Type.ARRAY) {
            List<?> list = (List<?>) v;
            ParamSpec items = spec.items() == null
                    ? new ParamSpec(Type.STRING, false, null, null, null, null, null, null, null)
                    : spec.items();
            List<Object> checked = new ArrayList<>(list.size());
            int before = errors.size();
            for (int i = 0; i < list.size(); i++) {
                Object item = list.get(i) == null ? null : value(field + "[" + i + "]", items, list.get(i), errors);
                if (list.get(i) == null) {
                    errors.add(new FieldError(field + "[" + i + "]", "must not be null"));
                }
                checked.add(item);
            }
            return errors.size() == before ? List.copyOf(checked) : null;
        }
        if (problem != null) {
            errors.add(new FieldError(field, problem));
            return null;
        }
        return v;
    }

    /** {@code raw} as a value of {@code type}, or null when it is not one; strings such as "5" or "true" are read. */
    private static Object typed(Type type, Object raw) {
        return switch (type) {
            case STRING -> raw instanceof String || raw instanceof Number || raw instanceof Boolean ? text(raw) : null;
            case INTEGER -> {
                BigDecimal d = decimal(raw);
                if (d == null || d.stripTrailingZeros().scale() > 0) {
                    yield null;
                }
                BigInteger i = d.toBigIntegerExact();
                yield i.bitLength() < 64 ? (Object) i.longValue() : null;
            }
            case NUMBER -> decimal(raw);
            case BOOLEAN ->
                raw instanceof Boolean
                        ? raw
                        : "true".equals(raw) ? Boolean.TRUE : "false".equals(raw) ? Boolean.FALSE : null;
            case DATE -> {
                try {
                    yield raw instanceof String s ? LocalDate.parse(s).toString() : null;
                } catch (DateTimeParseException e) {
                    yield null;
                }
            }
            case DATETIME -> {
                try {
                    yield raw instanceof String s ? OffsetDateTime.parse(s).toString() : null;
                } catch (DateTimeParseException e) {
                    yield null;
                }
            }
            case ARRAY -> raw instanceof List<?> ? raw : null;
        };
    }

    /** What is wrong with a value already of the spec's type, or null. */
    private static String problem(ParamSpec spec, Object v) {
        if (!spec.allowed().isEmpty() && spec.allowed().stream().noneMatch(a -> same(a, v))) {
            return "must be one of "
                    + String.join(
                            ", ", spec.allowed().stream().map(Parameters::text).toList());
        }
        switch (v) {
            case String s -> {
                if (s.length() > spec.maxLength()) {
                    return "must be at most " + spec.maxLength() + " characters long";
                }
                if (spec.min() != null && s.length() < spec.min().intValue()) {
                    return "must be at least " + spec.min().toPlainString() + " characters long";
                }
                if (spec.pattern() != null
                        && !Pattern.compile(spec.pattern()).matcher(s).matches()) {
                    return "must match " + spec.pattern();
                }
            }
            case List<?> l -> {
                if (l.size() > spec.maxLength()) {
                    return "must have at most " + spec.maxLength() + " elements";
                }
                if (spec.min() != null && l.size() < spec.min().intValue()) {
                    return "must have at least " + spec.min().toPlainString() + " elements";
                }
            }
            case Number n -> {
                BigDecimal d = decimal(n);
                if (spec.min() != null && d.compareTo(spec.min()) < 0) {
                    return "must be at least " + spec.min().toPlainString();
                }
                if (spec.max() != null && d.compareTo(spec.max()) > 0) {
                    return "must be at most " + spec.max().toPlainString();
                }
            }
            default -> {}
        }
        return null;
    }

    private static boolean same(Object allowed, Object v) {
        if (allowed instanceof Number a && v instanceof Number b) {
            return decimal(a).compareTo(decimal(b)) == 0;
        }
        return allowed.equals(v);
    }

    private static BigDecimal decimal(Object raw) {
        try {
            return switch (raw) {
                case BigDecimal d -> d;
                case BigInteger i -> new BigDecimal(i);
                case Long l -> BigDecimal.valueOf(l);
                case Integer i -> BigDecimal.valueOf(i);
                case Short s -> BigDecimal.valueOf(s);
                case Double d -> Double.isFinite(d) ? BigDecimal.valueOf(d) : null;
                case Float f -> Float.isFinite(f) ? BigDecimal.valueOf(f) : null;
                case String s -> s.length() <= 40 ? new BigDecimal(s.strip()) : null;
                default -> null;
            };
        } catch (NumberFormatException e) {
            return null;
        }
    }

    static String text(Object v) {
        return v instanceof BigDecimal d ? d.toPlainString() : String.valueOf(v);
    }

    private static String article(Type type) {
        return switch (type) {
            case STRING -> "a string";
            case INTEGER -> "an integer";
            case NUMBER -> "a number";
            case BOOLEAN -> "true or false";
            case DATE -> "a date such as 2026-01-31";
            case DATETIME -> "a date and time with an offset such as 2026-01-31T02:00:00+08:00";
            case ARRAY -> "a list";
        };
    }
}
