package dev.ax.domain.template;

import java.util.Locale;

/**
 * Where a template's text lands, which decides how each value is written into it. A value is always
 * data there, never syntax: the one rule behind every target.
 *
 * <ul>
 *   <li>{@link #COMMAND} — a shell command ({@code sh -c}). Each value becomes exactly one literal word
 *       for the quoting context it stands in ({@link ShellSyntax}): bare, it is single-quoted when it
 *       holds anything but {@code [A-Za-z0-9@%+:./_-]}; inside double quotes, {@code \ $ ` "} are
 *       escaped; inside single quotes, {@code '} becomes {@code '\''}. A variable where no quoting makes
 *       a value safe (backquotes, {@code ${…}}, {@code $((…))}, a here-document, a comment, right after
 *       a backslash or a {@code $}) is refused when the task is saved. A list parameter standing as a
 *       whole bare word becomes one word per element. Secrets may not appear: they go in {@code env}.</li>
 *   <li>{@link #URL} — every value is percent-encoded (all but {@code A-Za-z0-9-._~}), except a secret,
 *       which an admin set and may hold a whole URL or its credentials.</li>
 *   <li>{@link #JSON} — a string body sent as JSON: inside a JSON string a value is escaped as string
 *       content; outside, it is written as a JSON value (a string quoted, a number or boolean as it is,
 *       a list as an array).</li>
 *   <li>{@link #FORM} — a form body ({@code application/x-www-form-urlencoded}): percent-encoded.</li>
 *   <li>{@link #XML} — an XML body: {@code & < > " '} as entities.</li>
 *   <li>{@link #HEADER} — an HTTP header value: as it is, but a value with CR, LF or NUL is refused.</li>
 *   <li>{@link #ENV}, {@link #TEXT} — an environment value, a plain-text body: as it is.</li>
 *   <li>{@link #PATH}, {@link #KEY} — a working directory, an idempotency key or a follow-up's parameter:
 *       as it is; these are stored or shown with the run, so secrets may not appear.</li>
 * </ul>
 *
 * A value holding NUL is refused everywhere: no process argument, environment or header can carry it.
 */
public enum Target {
    COMMAND(false),
    URL(true),
    JSON(true),
    FORM(true),
    XML(true),
    HEADER(true),
    ENV(true),
    TEXT(true),
    PATH(false),
    KEY(false);

    private final boolean secrets;

    Target(boolean secrets) {
        this.secrets = secrets;
    }

    /** Whether {@code {{secret.NAME}}} may appear here: only where the text is handed to the work, never stored or shown. */
    public boolean allowsSecrets() {
        return secrets;
    }

    /**
     * How a string body is written, from the action's {@code Content-Type} header (null when none):
     * JSON, form or XML by their media types; without a header, a body that starts with '{' (not a
     * variable's "{{") or '[' is JSON; anything else is plain text.
     */
    public static Target ofBody(String contentType, String body) {
        if (contentType != null) {
            String type = contentType.toLowerCase(Locale.ROOT);
            if (type.contains("json")) {
                return JSON;
            }
            if (type.contains("x-www-form-urlencoded")) {
                return FORM;
            }
            return type.contains("xml") ? XML : TEXT;
        }
        String start = body.stripLeading();
        return (start.startsWith("{") && !start.startsWith("{{")) || start.startsWith("[") ? JSON : TEXT;
    }
}
