package dev.ax.domain.template;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.List;

/** How one value is written into the text around it: each encoding makes any value pure data there. */
final class Escapes {
    /** The encodings a variable's value can get; which one is decided by {@link Target} and the syntax around it. */
    enum Encoding {
        /** As it is (environment values, header values, plain-text bodies, secrets in URLs). */
        RAW,
        /** A bare shell word: single-quoted unless it holds only characters that mean nothing to a shell. */
        SHELL_WORD,
        /** A bare shell word, single-quoted whatever it holds. */
        SHELL_QUOTED,
        /** Inside a shell's double quotes: {@code \ $ ` "} escaped. */
        SHELL_DOUBLE,
        /** Inside a shell's single quotes: {@code '} closes, writes a quoted quote, and reopens. */
        SHELL_SINGLE,
        /** Percent-encoded UTF-8: everything but {@code A-Za-z0-9-._~}. */
        PERCENT,
        /** The content of a JSON string literal. */
        JSON_STRING,
        /** A whole JSON value: a string quoted, a number or boolean as it is, a list as an array. */
        JSON_VALUE,
        /** XML character data or an attribute value. */
        XML
    }

    private Escapes() {}

    /**
     * True for a character that means nothing to sh, dash or bash anywhere in a word. Left out on purpose:
     * {@code =} (a first word holding it would be an assignment: {@code LD_PRELOAD=…}), {@code ,} (bash's
     * brace expansion) and {@code ~} (tilde expansion), besides every quote, operator, glob and expansion character.
     */
    static boolean isPlainShellChar(char c) {
        return (c >= 'a' && c <= 'z')
                || (c >= 'A' && c <= 'Z')
                || (c >= '0' && c <= '9')
                || c == '@'
                || c == '%'
                || c == '+'
                || c == ':'
                || c == '.'
                || c == '/'
                || c == '_'
                || c == '-';
    }

    static String shellWord(String v) {
        if (v.isEmpty()) {
            return "''";
        }
        for (int i = 0; i < v.length(); i++) {
            if (!isPlainShellChar(v.charAt(i))) {
                return "'" + shellSingle(v) + "'";
            }
        }
        return v;
    }

    static String shellSingle(String v) {
        return v.replace("'", "'\\''");
    }

    static String shellDouble(String v) {
        StringBuilder out = new StringBuilder(v.length() + 8);
        for (int i = 0; i < v.length(); i++) {
            char c = v.charAt(i);
            if (c == '\\' || c == '$' || c == '`' || c == '"') {
                out.append('\\');
            }
            out.append(c);
        }
        return out.toString();
    }

    static String percent(String v) {
        StringBuilder out = new StringBuilder(v.length() + 16);
        for (byte b : v.getBytes(StandardCharsets.UTF_8)) {
            char c = (char) (b & 0xff);
            if ((c >= 'a' && c <= 'z')
                    || (c >= 'A' && c <= 'Z')
                    || (c >= '0' && c <= '9')
                    || c == '-'
                    || c == '.'
                    || c == '_'
                    || c == '~') {
                out.append(c);
            } else {
                out.append('%')
                        .append(Character.toUpperCase(Character.forDigit(c >> 4, 16)))
                        .append(Character.toUpperCase(Character.forDigit(c & 0xf, 16)));
            }
        }
        return out.toString();
    }

    static String jsonString(String v) {
        StringBuilder out = new StringBuilder(v.length() + 8);
        for (int i = 0; i < v.length(); i++) {
            char c = v.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c < 0x20 || c == '\u2028' || c == '\u2029') {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        return out.toString();
    }

    /** A scalar or a list of scalars as a JSON value. */
    static String jsonValue(Object v) {
        return switch (v) {
            case String s -> '"' + jsonString(s) + '"';
            case Boolean b -> b.toString();
            case BigDecimal d -> d.toPlainString();
            case Number n -> n.toString();
            case List<?> list -> {
                StringBuilder out = new StringBuilder("[");
                for (Object item : list) {
                    out.append(out.length() > 1 ? "," : "").append(jsonValue(item));
                }
                yield out.append(']').toString();
            }
            default ->
                throw new IllegalArgumentException(
                        "not a JSON scalar or list: " + v.getClass().getSimpleName());
        };
    }

    static String xml(String v) {
        StringBuilder out = new StringBuilder(v.length() + 8);
        for (int i = 0; i < v.length(); i++) {
            char c = v.charAt(i);
            switch (c) {
                case '&' -> out.append("&amp;");
                case '<' -> out.append("&lt;");
                case '>' -> out.append("&gt;");
                case '"' -> out.append("&quot;");
                case '\'' -> out.append("&apos;");
                default -> out.append(c);
            }
        }
        return out.toString();
    }

    /** A scalar value in {@code encoding}; lists are the caller's to take apart. */
    static String write(String v, Encoding encoding) {
        return switch (encoding) {
            case RAW -> v;
            case SHELL_WORD -> shellWord(v);
            case SHELL_QUOTED -> "'" + shellSingle(v) + "'";
            case SHELL_DOUBLE -> shellDouble(v);
            case SHELL_SINGLE -> shellSingle(v);
            case PERCENT -> percent(v);
            case JSON_STRING -> jsonString(v);
            case JSON_VALUE -> jsonValue(v);
            case XML -> xml(v);
        };
    }
}
