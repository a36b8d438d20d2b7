package dev.ax.domain.access;

import dev.ax.domain.task.JsonReader;
import dev.ax.domain.task.TaskDefinitionCodec;
import java.util.regex.Pattern;

/** The names of people, tokens and teams: they are recorded as actors and shown in URLs, so they stay plain. */
public final class Names {
    public static final int MAX_LENGTH = 100;
    /** A person's or a token's name: like a task name, and '@' and '+' for the e-mail addresses identity providers use. */
    private static final Pattern PERSON = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.@+-]*");

    private Names() {}

    /** A person's or token's name, or an error on {@code field}. */
    public static String person(JsonReader in, Object value, String field) {
        String s = in.string(value, field);
        if (s == null) {
            return null;
        }
        if (s.isEmpty() || s.length() > MAX_LENGTH) {
            in.error(field, "must be 1 to " + MAX_LENGTH + " characters long");
            return null;
        }
        if (!PERSON.matcher(s).matches()) {
            in.error(
                    field,
                    "may contain only letters, digits, '_', '.', '@', '+' and '-', and must start with a letter or digit");
            return null;
        }
        return s;
    }

    /** True when {@code s} is a valid person's or token's name. */
    public static boolean isPerson(String s) {
        return s != null
                && !s.isEmpty()
                && s.length() <= MAX_LENGTH
                && PERSON.matcher(s).matches();
    }

    /** A team's name: the rules of task names. */
    public static String team(JsonReader in, Object value, String field) {
        return TaskDefinitionCodec.name(in, value, field);
    }
}
