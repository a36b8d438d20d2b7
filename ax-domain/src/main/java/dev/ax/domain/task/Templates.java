package dev.ax.domain.task;

import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The {@code {{ name }}} templates of commands, environment values, working directories and
 * idempotency keys. Spaces inside the braces are allowed. A "{{" always starts a variable and
 * there is no escape for it: a command that needs a literal "{{" (awk, Go templates)
 * belongs in a script file that the command runs.
 *
 * <p>Variables: {@code date}, {@code yesterday}, {@code tomorrow} (yyyy-MM-dd) and
 * {@code dateCompact} (yyyyMMdd) are the slot's date in the trigger's zone; {@code scheduledAt}
 * (ISO-8601 with offset) and {@code scheduledEpoch} (seconds) are the slot itself;
 * {@code taskName}, {@code instanceId}, {@code attempt} (1 for the first), {@code requestId}
 * (empty for scheduled runs) and {@code params.NAME} (a trigger parameter).
 *
 * <p>Validation ({@link #problems}) happens when a definition is saved, so that rendering at run
 * time fails only for a missing parameter.
 */
public final class Templates {
    /** The variables in the order error messages list them. */
    public static final List<String> VARIABLES = List.of("date", "yesterday", "tomorrow", "dateCompact",
            "scheduledAt", "scheduledEpoch", "taskName", "instanceId", "attempt", "requestId", "params.NAME");

    private static final Set<String> PLAIN = Set.copyOf(VARIABLES.subList(0, VARIABLES.size() - 1));
    private static final String PARAMS = "params.";
    private static final String OPEN = "{{";
    private static final String CLOSE = "}}";

    private Templates() {
    }

    /** Names used in {@code template} that are not variables, each once, in order of appearance. */
    public static List<String> unknownVariables(String template) {
        Set<String> unknown = new LinkedHashSet<>();
        int from = 0;
        int open;
        while ((open = template.indexOf(OPEN, from)) >= 0) {
            int close = template.indexOf(CLOSE, open + OPEN.length());
            if (close < 0) {
                break; // an unclosed "{{" is a syntax problem, reported by problems()
            }
            String name = template.substring(open + OPEN.length(), close).strip();
            if (!name.isEmpty() && !isKnown(name)) {
                unknown.add(name);
            }
            from = close + CLOSE.length();
        }
        return List.copyOf(unknown);
    }

    /**
     * Everything wrong with {@code template}, as user-readable reasons: unknown variables, an
     * empty "{{}}" and an unclosed "{{". Empty when it renders for every context
     * that has the parameters it names.
     */
    public static List<String> problems(String template) {
        List<String> problems = new ArrayList<>();
        int from = 0;
        int open;
        while ((open = template.indexOf(OPEN, from)) >= 0) {
            int close = template.indexOf(CLOSE, open + OPEN.length());
            if (close < 0) {
                problems.add(unclosed(open));
                break;
            }
            if (template.substring(open + OPEN.length(), close).isBlank()) {
                problems.add("empty template variable '{{}}' at position " + open);
            }
            from = close + CLOSE.length();
        }
        for (String name : unknownVariables(template)) {
            problems.add(unknownReason(name));
        }
        return problems;
    }

    /**
     * {@code template} with every variable replaced. One left-to-right pass; a value is never
     * scanned again, so a parameter holding {@code {{date}}} stays as it is.
     *
     * @throws IllegalArgumentException for an unknown variable, a malformed template, or a
     *                                  {@code params.NAME} the context has no value for
     */
    public static String render(String template, TemplateContext ctx) {
        int open = template.indexOf(OPEN);
        if (open < 0) {
            return template; // the common case: nothing to do, nothing to copy
        }
        StringBuilder out = new StringBuilder(template.length() + 32);
        int from = 0;
        while (open >= 0) {
            int close = template.indexOf(CLOSE, open + OPEN.length());
            if (close < 0) {
                throw new IllegalArgumentException(unclosed(open));
            }
            out.append(template, from, open);
            out.append(value(template.substring(open + OPEN.length(), close).strip(), ctx));
            from = close + CLOSE.length();
            open = template.indexOf(OPEN, from);
        }
        return out.append(template, from, template.length()).toString();
    }

    private static String value(String name, TemplateContext ctx) {
        if (name.startsWith(PARAMS) && isParamName(name, PARAMS.length())) {
            return param(name.substring(PARAMS.length()), ctx.params());
        }
        return switch (name) {
            case "date" -> date(ctx).format(DateTimeFormatter.ISO_LOCAL_DATE);
            case "yesterday" -> date(ctx).minusDays(1).format(DateTimeFormatter.ISO_LOCAL_DATE);
            case "tomorrow" -> date(ctx).plusDays(1).format(DateTimeFormatter.ISO_LOCAL_DATE);
            case "dateCompact" -> date(ctx).format(DateTimeFormatter.BASIC_ISO_DATE);
            case "scheduledAt" -> ctx.scheduledAt().atZone(ctx.zone()).format(DateTimeFormatter.ISO_OFFSET_DATE_TIME);
            case "scheduledEpoch" -> Long.toString(ctx.scheduledAt().getEpochSecond());
            case "taskName" -> ctx.taskName();
            case "instanceId" -> Long.toString(ctx.instanceId());
            case "attempt" -> Integer.toString(ctx.attempt());
            // Scheduled runs have no request; failing them all for it would be worse than "".
            case "requestId" -> ctx.requestId() == null ? "" : ctx.requestId();
            case "" -> throw new IllegalArgumentException("empty template variable '{{}}'");
            default -> throw new IllegalArgumentException(unknownReason(name));
        };
    }

    private static String param(String key, Map<String, Object> params) {
        Object v = params.get(key);
        return switch (v) {
            case null -> throw new IllegalArgumentException("template variable params." + key
                    + " has no value: pass it as a trigger parameter");
            case String s -> s;
            case BigDecimal d -> d.toPlainString();
            case Number n -> n.toString();
            case Boolean b -> b.toString();
            // Rendering Java's toString of a map or list into a shell command helps nobody.
            default -> throw new IllegalArgumentException("template variable params." + key
                    + " is a JSON object or array; only strings, numbers and booleans can be rendered");
        };
    }

    private static LocalDate date(TemplateContext ctx) {
        return LocalDate.ofInstant(ctx.scheduledAt(), ctx.zone());
    }

    private static boolean isKnown(String name) {
        return PLAIN.contains(name) || (name.startsWith(PARAMS) && isParamName(name, PARAMS.length()));
    }

    /** {@code [A-Za-z0-9_.-]+} from {@code from} on; by hand because render runs per attempt. */
    private static boolean isParamName(String s, int from) {
        if (from >= s.length()) {
            return false;
        }
        for (int i = from; i < s.length(); i++) {
            char c = s.charAt(i);
            boolean ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                    || c == '_' || c == '.' || c == '-';
            if (!ok) {
                return false;
            }
        }
        return true;
    }

    private static String unknownReason(String name) {
        return "unknown template variable '" + name + "'; known: " + String.join(", ", VARIABLES);
    }

    private static String unclosed(int at) {
        return "unclosed '{{' at position " + at + "; every '{{' starts a variable that '}}' must close";
    }
}
