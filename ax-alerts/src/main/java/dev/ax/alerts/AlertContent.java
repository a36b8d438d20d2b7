package dev.ax.alerts;

import dev.ax.domain.secret.SecretMask;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * What an alert says, independent of the channel: composed once when the alert is written (so the
 * log tail is the one of the failure), stored as JSON in {@code ax_alert.content}, rendered by
 * each channel in its own format ({@link AlertText}).
 *
 * @param fields     labelled facts, in order (Task, Run, Attempt, State, Failure, ...)
 * @param details    further lines (the slots of an anomaly, the alerts of a storm)
 * @param logTail    the last lines of the run's output, bounded; empty when there is none
 * @param nextAction what to do now, as a command or a sentence
 * @param link       the console page, or null when no console URL is configured
 * @param language   the language it is written in (its channel's); its fields keep their English labels as keys, which
 *                   {@link AlertText} shows in this language
 */
public record AlertContent(
        AlertKind kind,
        String title,
        Map<String, String> fields,
        List<String> details,
        String logTail,
        String nextAction,
        String link,
        Locale language) {
    /** An alert in English. */
    public AlertContent(
            AlertKind kind,
            String title,
            Map<String, String> fields,
            List<String> details,
            String logTail,
            String nextAction,
            String link) {
        this(kind, title, fields, details, logTail, nextAction, link, AlertWords.EN);
    }

    public AlertContent {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(title, "title");
        language = language == null ? AlertWords.EN : language;
        fields = fields == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(fields));
        details = details == null ? List.of() : List.copyOf(details);
        logTail = logTail == null ? "" : logTail;
    }

    /** This content with the values of secrets written as {@code ***} wherever it holds text. */
    public AlertContent masked(SecretMask mask) {
        if (mask.isEmpty()) {
            return this;
        }
        Map<String, String> f = new LinkedHashMap<>();
        fields.forEach((k, v) -> f.put(k, mask.apply(v)));
        return new AlertContent(
                kind,
                mask.apply(title),
                f,
                details.stream().map(mask::apply).toList(),
                mask.apply(logTail),
                mask.apply(nextAction),
                link,
                language);
    }

    /** The words of its language. */
    AlertWords words() {
        return AlertWords.of(language);
    }

    public Map<String, Object> toMap() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("kind", kind.name());
        m.put("severity", kind.severity().name());
        m.put("title", title);
        m.put("fields", fields);
        m.put("details", details);
        m.put("logTail", logTail);
        m.put("nextAction", nextAction);
        m.put("link", link);
        m.put("language", language.toLanguageTag());
        return m;
    }

    @SuppressWarnings("unchecked")
    public static AlertContent fromMap(Map<String, Object> m) {
        Map<String, String> fields = new LinkedHashMap<>();
        ((Map<String, Object>) m.getOrDefault("fields", Map.of())).forEach((k, v) -> fields.put(k, String.valueOf(v)));
        List<String> details = new ArrayList<>();
        ((List<Object>) m.getOrDefault("details", List.of())).forEach(d -> details.add(String.valueOf(d)));
        return new AlertContent(
                AlertKind.valueOf((String) m.get("kind")),
                (String) m.get("title"),
                fields,
                details,
                (String) m.get("logTail"),
                (String) m.get("nextAction"),
                (String) m.get("link"),
                // Alerts queued before languages existed were written in English.
                AlertWords.parse((String) m.get("language")).orElse(AlertWords.EN));
    }
}
