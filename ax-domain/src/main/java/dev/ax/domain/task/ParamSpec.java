package dev.ax.domain.task;

import java.math.BigDecimal;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * One declared trigger parameter ({@code "params": {"region": {"enum": ["cn", "us"]}}}): its type and
 * what a value must satisfy. {@link Parameters} checks a run's values against the declarations.
 *
 * @param type         the JSON-ish type; {@code string} when not given
 * @param required     a trigger must give it (only tasks that are not scheduled may require one)
 * @param defaultValue used when a run does not give it; {@code null} = none
 * @param allowed      the only values allowed ({@code enum}), each of {@code type}; empty = any
 * @param pattern      a regular expression a string value must match as a whole; {@code null} = any
 * @param min          the least number, or the least length of a string or list; {@code null} = none
 * @param max          the greatest number, or the greatest length of a string or list; {@code null} = none
 * @param items        what each element of an {@code array} is ({@code type}, {@code enum}, {@code pattern})
 */
public record ParamSpec(
        Type type,
        boolean required,
        Object defaultValue,
        List<Object> allowed,
        String pattern,
        BigDecimal min,
        BigDecimal max,
        String description,
        ParamSpec items) {

    /** The types a parameter can have, by their JSON names. */
    public enum Type {
        STRING,
        INTEGER,
        NUMBER,
        BOOLEAN,
        DATE,
        DATETIME,
        ARRAY;

        public String wireName() {
            return name().toLowerCase(Locale.ROOT);
        }

        /** What the console's form offers for it. */
        public String inputType() {
            return switch (this) {
                case INTEGER, NUMBER -> "number";
                case DATE -> "date";
                case DATETIME -> "datetime-local";
                default -> "text";
            };
        }
    }

    /** The longest string value accepted when no {@code max} says otherwise: parameters are values, not documents. */
    public static final int DEFAULT_MAX_LENGTH = 4096;

    public ParamSpec {
        Objects.requireNonNull(type, "type");
        allowed = allowed == null ? List.of() : List.copyOf(allowed);
    }

    /** True if this is the kind of spec an {@code array}'s {@code items} can be: a plain value, no default of its own. */
    boolean isItem() {
        return type != Type.ARRAY && !required && defaultValue == null;
    }

    /** The longest string or list allowed. */
    int maxLength() {
        return max == null
                ? DEFAULT_MAX_LENGTH
                : max.min(BigDecimal.valueOf(Integer.MAX_VALUE)).intValue();
    }
}
