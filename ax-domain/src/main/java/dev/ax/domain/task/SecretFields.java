package dev.ax.domain.task;

import dev.ax.domain.template.Templates;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Where a task uses secrets ({@code {{secret.NAME}}}), and where it keeps a credential in plain text instead: an
 * environment variable or header whose name says it holds one (PASSWORD, PASSWD, TOKEN, SECRET, KEY, CREDENTIAL, or
 * an {@code Authorization} header) with a value that is not a secret reference. Such a value is stored with every
 * version of the task and shown by {@code GET /api/tasks/{name}}, its versions and their diffs; the task is still
 * saved, with a warning.
 */
public final class SecretFields {
    private static final List<String> SECRET_WORDS =
            List.of("PASSWORD", "PASSWD", "TOKEN", "SECRET", "KEY", "CREDENTIAL");
    private static final Pattern REFERENCE = Pattern.compile("\\{\\{\\s*secret\\.[A-Za-z0-9_.-]+\\s*}}");
    /** What may stand beside a reference in a value that is still wholly secret: an authorization scheme ("Bearer"). */
    private static final Pattern SCHEME = Pattern.compile("[A-Za-z][A-Za-z0-9_-]*");

    /** One use of a secret: the field it stands in ({@code action.env.DB_PASSWORD}) and the secret's name. */
    public record Use(String field, String name) {}

    private SecretFields() {}

    /** Every secret {@code def} uses, with its field, in the action and in the approval's preview action. */
    public static List<Use> uses(TaskDefinition def) {
        List<Use> uses = new ArrayList<>(uses(def.action(), "action"));
        Approval approval = def.policy().approval();
        if (approval != null && approval.preview() != null) {
            uses.addAll(uses(approval.preview(), "policy.approval.preview"));
        }
        return uses;
    }

    /** Every secret {@code action} uses; {@code field} is where the action stands in its task. */
    public static List<Use> uses(Action action, String field) {
        List<Use> uses = new ArrayList<>();
        switch (action) {
            case Action.Shell shell -> shell.env().forEach((k, v) -> add(uses, JsonReader.path(field + ".env", k), v));
            case Action.Http http -> {
                add(uses, field + ".url", http.url());
                http.headers().forEach((k, v) -> add(uses, JsonReader.path(field + ".headers", k), v));
                body(uses, field + ".body", http.body());
            }
            case Action.Sdk sdk -> {}
        }
        return uses;
    }

    private static void add(List<Use> uses, String field, String template) {
        Templates.secrets(template).forEach(name -> uses.add(new Use(field, name)));
    }

    private static void body(List<Use> uses, String field, Object node) {
        switch (node) {
            case String s -> add(uses, field, s);
            case Map<?, ?> m -> m.forEach((k, v) -> body(uses, JsonReader.path(field, String.valueOf(k)), v));
            case List<?> l -> {
                for (int i = 0; i < l.size(); i++) {
                    body(uses, JsonReader.path(field, i), l.get(i));
                }
            }
            case null, default -> {}
        }
    }

    /** Whether an environment variable or header of this name holds a credential, by its name. */
    public static boolean looksSecret(String name) {
        String upper = name.toUpperCase(Locale.ROOT);
        return upper.equals("AUTHORIZATION") || SECRET_WORDS.stream().anyMatch(upper::contains);
    }

    /**
     * Whether {@code value} is wholly secret: one or more {@code {{secret.NAME}}} references, at most with an
     * authorization scheme beside them ({@code Bearer {{secret.api_token}}}). A parameter is not: its value is
     * stored with the run.
     */
    public static boolean isWhollySecret(String value) {
        String rest = REFERENCE.matcher(value).replaceAll(" ").strip();
        return !rest.equals(value.strip())
                && (rest.isEmpty() || SCHEME.matcher(rest).matches());
    }

    /** A warning for each field of {@code def} that looks secret and keeps a plain value. */
    public static List<String> warnings(TaskDefinition def) {
        List<String> warnings = new ArrayList<>(warnings(def.action(), "action"));
        Approval approval = def.policy().approval();
        if (approval != null && approval.preview() != null) {
            warnings.addAll(warnings(approval.preview(), "policy.approval.preview"));
        }
        return warnings;
    }

    private static List<String> warnings(Action action, String field) {
        List<String> warnings = new ArrayList<>();
        switch (action) {
            case Action.Shell shell ->
                shell.env().forEach((k, v) -> warn(warnings, JsonReader.path(field + ".env", k), k, v, ""));
            case Action.Http http ->
                http.headers()
                        .forEach((k, v) -> warn(
                                warnings,
                                JsonReader.path(field + ".headers", k),
                                k,
                                v,
                                k.equalsIgnoreCase("Authorization") ? "Bearer " : ""));
            case Action.Sdk sdk -> {}
        }
        return warnings;
    }

    private static void warn(List<String> warnings, String field, String key, String value, String scheme) {
        if (!looksSecret(key) || value.isBlank() || isWhollySecret(value)) {
            return;
        }
        String name = key.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9_.-]", "_");
        warnings.add(field + " holds a plain value, which is stored with every version of the task and shown with it:"
                + " keep it as a secret (ax secret set " + name + ") and write \"" + scheme + "{{secret." + name
                + "}}\" here");
    }
}
