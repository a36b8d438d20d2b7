package dev.ax.domain.secret;

import dev.ax.domain.task.ValidationException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.regex.Pattern;

/** What a secret's name and value may be. Each check throws a {@link ValidationException} naming the field and the reason. */
public final class SecretInput {
    public static final int MAX_NAME_LENGTH = 100;
    public static final int MAX_VALUE_BYTES = 64 * 1024;
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_.-]{1," + MAX_NAME_LENGTH + "}");

    private SecretInput() {}

    /** A name as {@code {{secret.NAME}}} can spell it: letters, digits, '_', '.' and '-', at most 100. */
    public static String name(String name) {
        if (name == null || !NAME.matcher(name).matches()) {
            throw new ValidationException(
                    "name",
                    "a secret's name is 1 to " + MAX_NAME_LENGTH
                            + " letters, digits, '_', '.' or '-' (as {{secret.NAME}} spells it)");
        }
        return name;
    }

    /**
     * A value of 4 characters to 64 KiB (UTF-8), without NUL. Shorter values are refused because a value is masked
     * ({@code ***}) wherever AX shows text, and masking every "abc" of every log would hide everything and say what
     * the value is.
     */
    public static String value(Object value) {
        if (value == null) {
            throw new ValidationException("value", "is required: the secret's value, as a JSON string");
        }
        if (!(value instanceof String s)) {
            throw new ValidationException("value", "must be a string");
        }
        if (s.indexOf('\0') >= 0) {
            throw new ValidationException(
                    "value", "holds a NUL character, which no environment variable or header can carry");
        }
        int bytes = s.getBytes(StandardCharsets.UTF_8).length;
        if (bytes > MAX_VALUE_BYTES) {
            throw new ValidationException(
                    "value", "is " + bytes + " bytes; a secret holds at most " + MAX_VALUE_BYTES + " (64 KiB)");
        }
        if (SecretMask.of(List.of(s)).isEmpty()) {
            throw new ValidationException(
                    "value",
                    "must be at least " + SecretMask.MIN_LENGTH + " characters (on one line at least):"
                            + " a value is masked as *** wherever AX shows output, and a shorter one could not be masked without"
                            + " masking those characters everywhere");
        }
        return s;
    }
}
