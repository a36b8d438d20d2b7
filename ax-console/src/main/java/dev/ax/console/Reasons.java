package dev.ax.console;

import dev.ax.domain.task.FieldError;
import dev.ax.domain.task.ValidationException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.ResourceBundle;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the API and the scheduler answer, in the person's words. Their messages stay English (scripts and the API's
 * clients read them); the console puts each into the person's language here, by the bundles' {@code reason.*} keys.
 * The English text of such a key is the message itself with its values as {@code {0}}, {@code {1}}, and it is also the
 * pattern that recognises the message, so a message and its translation cannot drift apart silently: a message that
 * no key recognises is shown as it is, and a test sends the real validators' messages through here.
 */
public final class Reasons {
    private static final String PREFIX = "reason.";
    private static final Pattern PLACEHOLDER = Pattern.compile("\\{(\\d+)}");
    /** The rules, built once per process from the English bundle. */
    private static final Map<String, List<Rule>> RULES = new ConcurrentHashMap<>();

    private Reasons() {}

    /**
     * A message as shown and as sent: {@code text} in the person's language, {@code english} the API's own words (the
     * page keeps them on hover when they differ).
     */
    public record Reason(String text, String english) {
        public boolean translated() {
            return !text.equals(english);
        }
    }

    /** One field's error: its field as the API names it, and why. */
    public record FieldReason(String field, Reason reason) {}

    /** A message of the API or the scheduler in {@code t}'s language, or as it is when no key recognises it. */
    static Reason of(I18n t, String english) {
        if (english == null) {
            return new Reason("", "");
        }
        if (t.locale().equals(I18n.EN)) {
            return untranslated(english);
        }
        String text = translate(t, english, 2);
        return text == null ? untranslated(english) : new Reason(text, english);
    }

    /**
     * The message in {@code t}'s words, or null when no key recognises it. A value that is itself a message of its own
     * ("stands inside backquotes, …") is put in the same words, {@code depth} levels down.
     */
    private static String translate(I18n t, String english, int depth) {
        for (Rule r : rules()) {
            String[] values = r.values(english);
            if (values != null) {
                Object[] shown = new Object[values.length];
                for (int i = 0; i < values.length; i++) {
                    String inner = depth > 0 ? translate(t, values[i], depth - 1) : null;
                    shown[i] = inner == null ? values[i] : inner;
                }
                return t.text(r.key(), shown);
            }
        }
        return null;
    }

    /** What an exception refusing an action says: a validation's errors one by one, each in the person's words. */
    static Reason of(I18n t, Exception e) {
        if (e instanceof Console.Refused r) {
            return t.locale().equals(I18n.EN) ? untranslated(r.getMessage()) : new Reason(r.in(t), r.getMessage());
        }
        if (e instanceof ValidationException v) {
            List<String> shown = new ArrayList<>();
            for (FieldReason f : fields(t, v.errors())) {
                shown.add(
                        f.field().isEmpty()
                                ? f.reason().text()
                                : f.field() + ": " + f.reason().text());
            }
            return new Reason(String.join("; ", shown), e.getMessage());
        }
        return of(t, e.getMessage());
    }

    static List<FieldReason> fields(I18n t, List<FieldError> errors) {
        return errors.stream()
                .map(f -> new FieldReason(f.field(), of(t, f.reason())))
                .toList();
    }

    static Reason untranslated(String english) {
        return new Reason(english, english);
    }

    /** The keys that recognise messages, most specific first (the most literal text), so a general one comes last. */
    static List<Rule> rules() {
        return RULES.computeIfAbsent("en", k -> {
            ResourceBundle en = ResourceBundle.getBundle(
                    I18n.BUNDLE,
                    Locale.ROOT,
                    ResourceBundle.Control.getNoFallbackControl(ResourceBundle.Control.FORMAT_PROPERTIES));
            return en.keySet().stream()
                    .filter(key -> key.startsWith(PREFIX))
                    .map(key -> Rule.of(key, en.getString(key)))
                    .sorted(Comparator.comparingInt(Rule::literal).reversed().thenComparing(Rule::key))
                    .toList();
        });
    }

    /**
     * A key's English text as a pattern: its words literally, each {@code {n}} one or more characters (as few as still
     * match the whole message); a value named twice must be the same text both times.
     */
    record Rule(String key, Pattern pattern, int values, int literal) {
        static Rule of(String key, String english) {
            StringBuilder regex = new StringBuilder();
            Matcher m = PLACEHOLDER.matcher(english);
            int at = 0;
            int literal = 0;
            Set<Integer> seen = new TreeSet<>();
            while (m.find()) {
                int value = Integer.parseInt(m.group(1));
                regex.append(Pattern.quote(english.substring(at, m.start())));
                regex.append(seen.add(value) ? "(?<v" + value + ">.+?)" : "\\k<v" + value + ">");
                literal += m.start() - at;
                at = m.end();
            }
            regex.append(Pattern.quote(english.substring(at)));
            literal += english.length() - at;
            if (!seen.isEmpty() && ((TreeSet<Integer>) seen).last() != seen.size() - 1) {
                throw new IllegalStateException(
                        key + ": its values must be numbered {0} to {" + (seen.size() - 1) + "}");
            }
            return new Rule(key, Pattern.compile(regex.toString(), Pattern.DOTALL), seen.size(), literal);
        }

        /** The values of a message this rule recognises, in order; null when it does not. */
        String[] values(String message) {
            Matcher m = pattern.matcher(message);
            if (!m.matches()) {
                return null;
            }
            String[] out = new String[values];
            for (int i = 0; i < values; i++) {
                out[i] = m.group("v" + i);
            }
            return out;
        }
    }
}
