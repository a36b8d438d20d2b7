package dev.ax.domain.template;

import dev.ax.domain.template.Escapes.Encoding;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The {@code {{ name }}} templates of commands, URLs, headers, bodies, environment values, working
 * directories and idempotency keys: the whole template language in one file, which makes it longer
 * than most (quoting for each place a value lands is {@link ShellSyntax}'s and {@link Target}'s).
 * Spaces inside the braces are allowed. A "{{" always starts a
 * variable and there is no escape for it: a command that needs a literal "{{" (awk, Go templates)
 * belongs in a script file that the command runs.
 *
 * <p>Variables: {@code date}, {@code yesterday}, {@code tomorrow} (yyyy-MM-dd) and
 * {@code dateCompact} (yyyyMMdd) are the slot's date in the trigger's zone; {@code scheduledAt}
 * (ISO-8601 with offset) and {@code scheduledEpoch} (seconds) are the slot itself;
 * {@code taskName}, {@code instanceId}, {@code attempt} (1 for the first), {@code requestId}
 * (empty for scheduled runs), {@code params.NAME} (a trigger parameter) and {@code secret.NAME}
 * (a stored secret, only where {@link Target#allowsSecrets()}).
 *
 * <p>Every value is data where it lands: {@link Target} says how it is written there. Validation
 * ({@link #problems}) happens when a definition is saved, so that rendering at run time fails only
 * for a parameter that is missing or cannot be written where it stands.
 */
public final class Templates {
    /** The variables in the order error messages list them. */
    public static final List<String> VARIABLES = List.of(
            "date",
            "yesterday",
            "tomorrow",
            "dateCompact",
            "scheduledAt",
            "scheduledEpoch",
            "taskName",
            "instanceId",
            "attempt",
            "requestId",
            "params.NAME",
            "secret.NAME");

    private static final Set<String> PLAIN = Set.copyOf(VARIABLES.subList(0, VARIABLES.size() - 2));
    /** The variables whose values AX makes itself, of letters, digits and {@code _.:+-} only (not the request id: a key may hold parameters). */
    private static final Set<String> OWN = Set.of(
            "date",
            "yesterday",
            "tomorrow",
            "dateCompact",
            "scheduledAt",
            "scheduledEpoch",
            "taskName",
            "instanceId",
            "attempt");

    static final String PARAMS = "params.";
    static final String SECRET = "secret.";
    private static final String OPEN = "{{";
    private static final String CLOSE = "}}";

    private Templates() {}

    /** One {@code {{…}}}: from its first brace to after its last, and the name inside, stripped. */
    record Placeholder(int start, int end, String name) {}

    /**
     * How a placeholder's value is written, or why it may not stand where it is. A refusal holds for
     * values from outside (parameters, the request id, secrets); AX's own values may stand there as they
     * are unless the refusal is {@code always}.
     */
    record Slot(Encoding encoding, boolean wholeWord, String refused, boolean always) {
        Slot(Encoding encoding, boolean wholeWord, String refused) {
            this(encoding, wholeWord, refused, false);
        }

        static Slot refused(String reason) {
            return new Slot(null, false, reason, false);
        }

        static Slot refusedAlways(String reason) {
            return new Slot(null, false, reason, true);
        }

        /** This slot for the variable {@code name}: AX's own values pass where outside values are refused. */
        Slot forVariable(String name) {
            return refused != null && !always && OWN.contains(name) ? new Slot(Encoding.RAW, false, null) : this;
        }
    }

    /** The placeholders of a template, and what is wrong with its braces. */
    private record Scan(List<Placeholder> placeholders, List<String> problems) {}

    private static Scan scan(String template) {
        List<Placeholder> found = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        int from = 0;
        int open;
        while ((open = template.indexOf(OPEN, from)) >= 0) {
            int close = template.indexOf(CLOSE, open + OPEN.length());
            if (close < 0) {
                problems.add(unclosed(open));
                break;
            }
            String name = template.substring(open + OPEN.length(), close).strip();
            if (name.isEmpty()) {
                problems.add("empty template variable '{{}}' at position " + open);
            }
            found.add(new Placeholder(open, close + CLOSE.length(), name));
            from = close + CLOSE.length();
        }
        return new Scan(found, problems);
    }

    private static List<Slot> slots(String template, Target target, List<Placeholder> placeholders) {
        List<Slot> read = switch (target) {
            case COMMAND -> ShellSyntax.slots(template, placeholders);
            case JSON -> JsonSyntax.slots(template, placeholders);
            default ->
                placeholders.stream()
                        .map(p -> new Slot(
                                switch (target) {
                                    case URL -> p.name().startsWith(SECRET) ? Encoding.RAW : Encoding.PERCENT;
                                    case FORM -> Encoding.PERCENT;
                                    case XML -> Encoding.XML;
                                    default -> Encoding.RAW;
                                },
                                false,
                                null))
                        .toList();
        };
        List<Slot> slots = new ArrayList<>(read.size());
        for (int i = 0; i < read.size(); i++) {
            slots.add(read.get(i).forVariable(placeholders.get(i).name()));
        }
        return slots;
    }

    /** Names used in {@code template} that are not variables, each once, in order of appearance. */
    public static List<String> unknownVariables(String template) {
        Set<String> unknown = new LinkedHashSet<>();
        for (Placeholder p : scan(template).placeholders()) {
            if (!p.name().isEmpty() && !isKnown(p.name())) {
                unknown.add(p.name());
            }
        }
        return List.copyOf(unknown);
    }

    /** The trigger parameters {@code template} uses ({@code params.NAME}), each once, in order. */
    public static Set<String> parameters(String template) {
        return names(template, PARAMS);
    }

    /** The secrets {@code template} uses ({@code secret.NAME}), each once, in order. */
    public static Set<String> secrets(String template) {
        return names(template, SECRET);
    }

    private static Set<String> names(String template, String prefix) {
        Set<String> names = new LinkedHashSet<>();
        for (Placeholder p : scan(template).placeholders()) {
            if (p.name().startsWith(prefix) && isName(p.name(), prefix.length())) {
                names.add(p.name().substring(prefix.length()));
            }
        }
        return names;
    }

    /** {@link #problems(String, Target)} for plain text. */
    public static List<String> problems(String template) {
        return problems(template, Target.TEXT);
    }

    /**
     * Everything wrong with {@code template} for {@code target}, as user-readable reasons: an empty
     * "{{}}", an unclosed "{{", unknown variables, a secret where none may appear, and a variable
     * standing where no encoding makes its value data. Empty when it renders for every context that
     * has the parameters and secrets it names.
     */
    public static List<String> problems(String template, Target target) {
        Scan scan = scan(template);
        List<String> problems = new ArrayList<>(scan.problems());
        for (String name : unknownVariables(template)) {
            problems.add(unknownReason(name));
        }
        List<Placeholder> placeholders = scan.placeholders();
        List<Slot> slots = slots(template, target, placeholders);
        for (int i = 0; i < placeholders.size(); i++) {
            Placeholder p = placeholders.get(i);
            if (p.name().startsWith(SECRET) && !target.allowsSecrets()) {
                problems.add(secretRefused(p.name(), target));
            } else if (slots.get(i).refused() != null) {
                problems.add(refusedReason(p, slots.get(i)));
            }
        }
        if (target == Target.URL
                && !placeholders.isEmpty()
                && placeholders.getFirst().start() == 0
                && !placeholders.getFirst().name().startsWith(SECRET)) {
            problems.add("{{" + placeholders.getFirst().name() + "}} cannot start a URL: its value is percent-encoded;"
                    + " start with http:// or https://, or with a {{secret.NAME}} that holds the address");
        }
        return problems;
    }

    /** {@link #render(String, Target, TemplateContext)} for plain text. */
    public static String render(String template, TemplateContext ctx) {
        return render(template, Target.TEXT, ctx);
    }

    /**
     * {@code template} with every variable replaced by its value, written for {@code target}. One
     * left-to-right pass; a value is never scanned again, so a parameter holding {@code {{date}}}
     * stays as it is.
     *
     * @throws TemplateException for a malformed template, a variable that may not stand where it is,
     *                           a {@code params.NAME} or {@code secret.NAME} the context has no value
     *                           for, or a value that cannot be written there
     */
    public static String render(String template, Target target, TemplateContext ctx) {
        if (!template.contains(OPEN)) {
            return template; // the common case: nothing to do, nothing to copy
        }
        Scan scan = scan(template);
        if (!scan.problems().isEmpty()) {
            throw new TemplateException(scan.problems().getFirst());
        }
        List<Placeholder> placeholders = scan.placeholders();
        List<Slot> slots = slots(template, target, placeholders);
        StringBuilder out = new StringBuilder(template.length() + 32);
        int from = 0;
        for (int i = 0; i < placeholders.size(); i++) {
            Placeholder p = placeholders.get(i);
            Slot slot = slots.get(i);
            if (p.name().startsWith(SECRET) && !target.allowsSecrets()) {
                throw new TemplateException(secretRefused(p.name(), target));
            }
            if (slot.refused() != null) {
                throw new TemplateException(refusedReason(p, slot));
            }
            out.append(template, from, p.start());
            out.append(Values.write(p.name(), Values.of(p.name(), ctx), slot, target));
            from = p.end();
        }
        return out.append(template, from, template.length()).toString();
    }

    /** The value of a variable, before it is written anywhere: a string, a number, a boolean or a list. */
    static Object value(String name, TemplateContext ctx) {
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
            case "" -> throw new TemplateException("empty template variable '{{}}'");
            default -> throw new TemplateException(unknownReason(name));
        };
    }

    private static LocalDate date(TemplateContext ctx) {
        return LocalDate.ofInstant(ctx.scheduledAt(), ctx.zone());
    }

    static boolean isKnown(String name) {
        return PLAIN.contains(name)
                || (name.startsWith(PARAMS) && isName(name, PARAMS.length()))
                || (name.startsWith(SECRET) && isName(name, SECRET.length()));
    }

    /** {@code [A-Za-z0-9_.-]+} from {@code from} on; by hand because render runs per attempt. */
    static boolean isName(String s, int from) {
        if (from >= s.length()) {
            return false;
        }
        for (int i = from; i < s.length(); i++) {
            char c = s.charAt(i);
            boolean ok = (c >= 'a' && c <= 'z')
                    || (c >= 'A' && c <= 'Z')
                    || (c >= '0' && c <= '9')
                    || c == '_'
                    || c == '.'
                    || c == '-';
            if (!ok) {
                return false;
            }
        }
        return true;
    }

    /** True for a name a parameter may have: 1 to 100 of {@code [A-Za-z0-9_.-]}, which also makes its environment variable's name. */
    public static boolean isParameterName(String name) {
        return name.length() <= 100 && isName(name, 0);
    }

    /** The text of a scalar parameter value (a string, number or boolean) as every target starts from it. */
    public static String text(Object scalar) {
        return switch (scalar) {
            case String s -> s;
            case BigDecimal d -> d.toPlainString();
            default -> scalar.toString();
        };
    }

    private static String refusedReason(Placeholder p, Slot slot) {
        String reason = "{{" + p.name() + "}} at position " + p.start() + " stands " + slot.refused();
        if (p.name().startsWith(PARAMS) && isName(p.name(), PARAMS.length())) {
            String env = "AX_PARAM_" + envName(p.name().substring(PARAMS.length()));
            return reason + "; write \"$" + env
                    + "\" there instead: the shell expands a variable without reading it as code";
        }
        return reason;
    }

    /** A parameter's name as the tail of its environment variable: upper case, '.' and '-' as '_'. */
    public static String envName(String param) {
        return param.toUpperCase(Locale.ROOT).replace('.', '_').replace('-', '_');
    }

    private static String secretRefused(String name, Target target) {
        return switch (target) {
            case COMMAND ->
                "{{" + name + "}} may not appear in a command, which is shown and logged: set it in \"env\""
                        + " (e.g. \"env\":{\"DB_PASSWORD\":\"{{" + name + "}}\"}) and use $DB_PASSWORD";
            default ->
                "{{" + name + "}} may not appear here: secrets go only in env, headers, URLs and bodies,"
                        + " never in what is stored or shown with a run";
        };
    }

    private static String unknownReason(String name) {
        return "unknown template variable '" + name + "'; known: " + String.join(", ", VARIABLES);
    }

    private static String unclosed(int at) {
        return "unclosed '{{' at position " + at + "; every '{{' starts a variable that '}}' must close";
    }

    /** Looking up and writing one value: kept apart so that the template walk above stays short. */
    private static final class Values {
        private Values() {}

        static Object of(String name, TemplateContext ctx) {
            if (name.startsWith(PARAMS) && isName(name, PARAMS.length())) {
                String key = name.substring(PARAMS.length());
                Object v = ctx.params().get(key);
                if (v == null) {
                    throw new TemplateException(
                            "template variable params." + key + " has no value: pass it as a trigger parameter", key);
                }
                return v;
            }
            if (name.startsWith(SECRET) && isName(name, SECRET.length())) {
                String key = name.substring(SECRET.length());
                String v = ctx.secrets().get(key);
                if (v == null) {
                    throw new TemplateException("secret " + key + " is not set (ax secret set " + key + ")");
                }
                return v;
            }
            return value(name, ctx);
        }

        static String write(String name, Object value, Slot slot, Target target) {
            String param = name.startsWith(PARAMS) ? name.substring(PARAMS.length()) : null;
            return switch (value) {
                case Map<?, ?> m ->
                    throw new TemplateException(
                            "template variable " + name
                                    + " is a JSON object; only strings, numbers, booleans and lists can be rendered",
                            param);
                case List<?> list -> list(name, param, list, slot);
                default -> scalar(name, param, value, slot, target);
            };
        }

        private static String list(String name, String param, List<?> list, Slot slot) {
            for (Object item : list) {
                if (item == null || item instanceof Map<?, ?> || item instanceof List<?>) {
                    throw new TemplateException(
                            "template variable " + name
                                    + " is a list holding a null, an object or a list; only lists of strings, numbers and booleans render",
                            param);
                }
                checkChars(name, param, text(item), null);
            }
            if (slot.encoding() == Encoding.JSON_VALUE) {
                return Escapes.jsonValue(list);
            }
            if ((slot.encoding() == Encoding.SHELL_WORD || slot.encoding() == Encoding.SHELL_QUOTED)
                    && slot.wholeWord()) {
                List<String> words = list.stream()
                        .map(item -> Escapes.write(text(item), slot.encoding()))
                        .toList();
                return String.join(" ", words);
            }
            throw new TemplateException(
                    "template variable " + name + " is a list, which renders only as whole shell words" + " (cmd {{"
                            + name + "}}) or as a JSON value",
                    param);
        }

        private static String scalar(String name, String param, Object value, Slot slot, Target target) {
            String text = text(value);
            checkChars(name, param, text, target);
            return slot.encoding() == Encoding.JSON_VALUE
                    ? Escapes.jsonValue(value)
                    : Escapes.write(text, slot.encoding());
        }

        /** NUL can be carried by no argument, variable or header; CR and LF in a header would start another one. */
        private static void checkChars(String name, String param, String text, Target target) {
            if (text.indexOf('\0') >= 0) {
                throw new TemplateException(
                        "template variable " + name + " holds a NUL character, which no command,"
                                + " environment or request can carry",
                        param);
            }
            if (target == Target.HEADER && (text.indexOf('\r') >= 0 || text.indexOf('\n') >= 0)) {
                throw new TemplateException(
                        "template variable " + name + " holds a line break, which may not appear"
                                + " in an HTTP header",
                        param);
            }
        }
    }
}
