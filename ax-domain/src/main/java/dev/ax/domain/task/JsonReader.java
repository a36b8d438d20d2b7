package dev.ax.domain.task;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Typed reads from a JSON tree as Jackson's {@code readValue(json, Object.class)} builds it
 * (maps, lists, strings, Integer/Long/BigInteger/Double, booleans, nulls).
 *
 * <p>A read never throws: it records a {@link FieldError} and returns {@code null}, so that one
 * pass over a definition reports every problem at once and the user fixes them all in one go.
 * Every typed read returns {@code null} without an error for a {@code null} input: JSON null
 * and an absent field mean the same, and a required field has already been reported by
 * {@link #required}.
 */
public final class JsonReader {
    private final List<FieldError> errors = new ArrayList<>();
    private final List<String> warnings = new ArrayList<>();
    /** The parameters each template field uses, in the order seen, to be checked against the declarations once all is read. */
    private final Map<String, Set<String>> parameterUses = new LinkedHashMap<>();

    public static String path(String parent, String key) {
        return parent.isEmpty() ? key : parent + "." + key;
    }

    public static String path(String parent, int index) {
        return parent + "[" + index + "]";
    }

    public void error(String field, String reason) {
        errors.add(new FieldError(field, reason));
    }

    void warn(String warning) {
        warnings.add(warning);
    }

    void usesParameters(String field, Set<String> names) {
        if (!names.isEmpty()) {
            parameterUses.computeIfAbsent(field, f -> new LinkedHashSet<>()).addAll(names);
        }
    }

    Map<String, Set<String>> parameterUses() {
        return parameterUses;
    }

    public boolean hasErrors() {
        return !errors.isEmpty();
    }

    public List<FieldError> errors() {
        return List.copyOf(errors);
    }

    List<String> warnings() {
        return List.copyOf(warnings);
    }

    @SuppressWarnings("unchecked")
    public Map<String, Object> object(Object value, String field) {
        if (value == null) {
            return null;
        }
        if (value instanceof Map<?, ?> map) {
            for (Object key : map.keySet()) {
                if (!(key instanceof String)) {
                    // Jackson never builds these; a hand-made tree might.
                    error(field, "must be an object with string keys");
                    return null;
                }
            }
            return (Map<String, Object>) map;
        }
        error(field, "must be an object");
        return null;
    }

    @SuppressWarnings("unchecked")
    public List<Object> array(Object value, String field) {
        if (value == null) {
            return null;
        }
        if (value instanceof List<?> list) {
            return (List<Object>) list;
        }
        error(field, "must be an array");
        return null;
    }

    /** Reports every key of {@code object} that is not in {@code known}: typos must not pass silently. */
    public void rejectUnknown(Map<String, Object> object, String field, Set<String> known) {
        for (String key : object.keySet()) {
            if (!known.contains(key)) {
                error(path(field, key), "unknown field");
            }
        }
    }

    /** The value of a field that must be there; JSON null counts as absent. */
    public Object required(Map<String, Object> object, String parent, String key) {
        Object value = object.get(key);
        if (value == null) {
            error(path(parent, key), "is required");
        }
        return value;
    }

    public String string(Object value, String field) {
        if (value == null || value instanceof String) {
            return (String) value;
        }
        error(field, "must be a string");
        return null;
    }

    public String nonBlank(Object value, String field) {
        String s = string(value, field);
        if (s != null && s.isBlank()) {
            error(field, "must not be blank");
            return null;
        }
        return s;
    }

    /** A positive ISO-8601 duration ({@code PT6H}, {@code P1D}) given as a string. */
    public Duration duration(Object value, String field) {
        String text = string(value, field);
        if (text == null) {
            return null;
        }
        try {
            Duration d = Duration.parse(text);
            if (d.isNegative() || d.isZero()) {
                error(field, "must be a positive duration");
                return null;
            }
            return d;
        } catch (DateTimeParseException e) {
            error(field, "must be an ISO-8601 duration such as PT6H, PT30M or P1D");
            return null;
        }
    }

    public Boolean bool(Object value, String field) {
        if (value == null || value instanceof Boolean) {
            return (Boolean) value;
        }
        error(field, "must be true or false");
        return null;
    }

    /**
     * An integer in {@code [min, max]}. Any integral number type is accepted, and so is a
     * floating-point number without a fraction ({@code 300.0}): some clients write every number
     * that way. Strings and booleans are not numbers, however they look.
     */
    public Long integer(Object value, String field, long min, long max) {
        if (value == null) {
            return null;
        }
        BigDecimal exact = value instanceof Number n ? exact(n) : null;
        if (exact == null || exact.stripTrailingZeros().scale() > 0) {
            error(field, "must be an integer");
            return null;
        }
        if (exact.compareTo(BigDecimal.valueOf(min)) < 0 || exact.compareTo(BigDecimal.valueOf(max)) > 0) {
            error(field, rangeReason(min, max));
            return null;
        }
        return exact.longValueExact();
    }

    public Integer int32(Object value, String field, int min, int max) {
        Long n = integer(value, field, min, max);
        return n == null ? null : n.intValue();
    }

    private static String rangeReason(long min, long max) {
        return max >= Integer.MAX_VALUE ? "must be " + min + " or more" : "must be between " + min + " and " + max;
    }

    /** The exact value of {@code n}, or {@code null} for NaN, infinities and unknown types. */
    private static BigDecimal exact(Number n) {
        return switch (n) {
            case Integer i -> BigDecimal.valueOf(i);
            case Long l -> BigDecimal.valueOf(l);
            case Short s -> BigDecimal.valueOf(s);
            case Byte b -> BigDecimal.valueOf(b);
            case BigInteger b -> new BigDecimal(b);
            case BigDecimal d -> d;
            case Double d when Double.isFinite(d) -> new BigDecimal(d);
            case Float f when Float.isFinite(f) -> new BigDecimal(f);
            default -> null;
        };
    }

    /**
     * An immutable deep copy of a JSON value, nulls kept: values stored verbatim must not change
     * when the caller reuses its tree, and {@code Map.copyOf} / {@code List.copyOf} reject nulls.
     */
    static Object freeze(Object value) {
        return switch (value) {
            case Map<?, ?> map -> {
                Map<Object, Object> copy = new LinkedHashMap<>();
                map.forEach((k, v) -> copy.put(k, freeze(v)));
                yield Collections.unmodifiableMap(copy);
            }
            case List<?> list -> list.stream().map(JsonReader::freeze).toList(); // toList keeps nulls
            case null, default -> value;
        };
    }

    /** A mutable deep copy, for trees handed out to callers (who may add to them). */
    static Object thaw(Object value) {
        return switch (value) {
            case Map<?, ?> map -> {
                Map<Object, Object> copy = new LinkedHashMap<>();
                map.forEach((k, v) -> copy.put(k, thaw(v)));
                yield copy;
            }
            case List<?> list -> {
                List<Object> copy = new ArrayList<>(list.size());
                list.forEach(v -> copy.add(thaw(v)));
                yield copy;
            }
            case null, default -> value;
        };
    }
}
