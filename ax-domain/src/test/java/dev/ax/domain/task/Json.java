package dev.ax.domain.task;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A test stand-in for Jackson, which this module does not depend on: {@link #parse} builds the
 * same Java types as {@code readValue(json, Object.class)} (LinkedHashMap, ArrayList, String,
 * Integer/Long/BigInteger by size, Double, Boolean, null), so tests can feed the codec JSON text
 * as the server will; {@link #write} is the way back, for round trips through "storage".
 * Also path helpers to derive a broken definition from a valid one.
 */
final class Json {
    private final String s;
    private int i;

    private Json(String s) {
        this.s = s;
    }

    static Object parse(String text) {
        Json p = new Json(text);
        Object v = p.value();
        p.ws();
        if (p.i != text.length()) {
            throw p.fail("trailing text");
        }
        return v;
    }

    /** Sets {@code path} (dots only) in a deep copy of {@code tree} to the JSON value {@code json}; {@code null} removes it. */
    @SuppressWarnings("unchecked")
    static Map<String, Object> with(Object tree, String path, String json) {
        Map<String, Object> copy = (Map<String, Object>) parse(write(tree));
        String[] keys = path.split("\\.");
        Map<String, Object> at = copy;
        for (int k = 0; k < keys.length - 1; k++) {
            at = (Map<String, Object>) at.computeIfAbsent(keys[k], x -> new LinkedHashMap<>());
        }
        if (json == null) {
            at.remove(keys[keys.length - 1]);
        } else {
            at.put(keys[keys.length - 1], parse(json));
        }
        return copy;
    }

    static String write(Object v) {
        StringBuilder sb = new StringBuilder();
        write(v, sb);
        return sb.toString();
    }

    private static void write(Object v, StringBuilder sb) {
        switch (v) {
            case null -> sb.append("null");
            case String str -> quote(str, sb);
            case Map<?, ?> m -> {
                sb.append('{');
                String sep = "";
                for (Map.Entry<?, ?> e : m.entrySet()) {
                    sb.append(sep);
                    quote((String) e.getKey(), sb);
                    sb.append(':');
                    write(e.getValue(), sb);
                    sep = ",";
                }
                sb.append('}');
            }
            case List<?> l -> {
                sb.append('[');
                for (int k = 0; k < l.size(); k++) {
                    sb.append(k == 0 ? "" : ",");
                    write(l.get(k), sb);
                }
                sb.append(']');
            }
            default -> sb.append(v); // numbers and booleans
        }
    }

    private static void quote(String str, StringBuilder sb) {
        sb.append('"');
        for (char c : str.toCharArray()) {
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\t' -> sb.append("\\t");
                default -> {
                    if (c < 0x20) {
                        sb.append(String.format("\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        sb.append('"');
    }

    private Object value() {
        ws();
        if (i >= s.length()) {
            throw fail("unexpected end");
        }
        char c = s.charAt(i);
        return switch (c) {
            case '{' -> object();
            case '[' -> array();
            case '"' -> string();
            case 't' -> literal("true", Boolean.TRUE);
            case 'f' -> literal("false", Boolean.FALSE);
            case 'n' -> literal("null", null);
            default -> number();
        };
    }

    private Map<String, Object> object() {
        Map<String, Object> m = new LinkedHashMap<>();
        i++;
        ws();
        if (s.charAt(i) == '}') {
            i++;
            return m;
        }
        while (true) {
            ws();
            String key = string();
            ws();
            expect(':');
            m.put(key, value());
            ws();
            if (s.charAt(i) == ',') {
                i++;
            } else {
                expect('}');
                return m;
            }
        }
    }

    private List<Object> array() {
        List<Object> l = new ArrayList<>();
        i++;
        ws();
        if (s.charAt(i) == ']') {
            i++;
            return l;
        }
        while (true) {
            l.add(value());
            ws();
            if (s.charAt(i) == ',') {
                i++;
            } else {
                expect(']');
                return l;
            }
        }
    }

    private String string() {
        expect('"');
        StringBuilder sb = new StringBuilder();
        while (s.charAt(i) != '"') {
            char c = s.charAt(i++);
            if (c == '\\') {
                char e = s.charAt(i++);
                switch (e) {
                    case 'n' -> sb.append('\n');
                    case 't' -> sb.append('\t');
                    case 'r' -> sb.append('\r');
                    case 'b' -> sb.append('\b');
                    case 'f' -> sb.append('\f');
                    case 'u' -> {
                        sb.append((char) Integer.parseInt(s.substring(i, i + 4), 16));
                        i += 4;
                    }
                    default -> sb.append(e); // \" \\ \/
                }
            } else {
                sb.append(c);
            }
        }
        i++;
        return sb.toString();
    }

    private Object number() {
        int start = i;
        while (i < s.length() && "+-0123456789.eE".indexOf(s.charAt(i)) >= 0) {
            i++;
        }
        String n = s.substring(start, i);
        if (n.isEmpty()) {
            throw fail("unexpected character");
        }
        if (n.contains(".") || n.contains("e") || n.contains("E")) {
            return Double.parseDouble(n);
        }
        BigInteger big = new BigInteger(n);
        if (big.bitLength() < 32) {
            return big.intValue();
        }
        return big.bitLength() < 64 ? (Object) big.longValue() : big;
    }

    private Object literal(String word, Object v) {
        if (!s.startsWith(word, i)) {
            throw fail("expected " + word);
        }
        i += word.length();
        return v;
    }

    private void expect(char c) {
        if (i >= s.length() || s.charAt(i) != c) {
            throw fail("expected '" + c + "'");
        }
        i++;
    }

    private void ws() {
        while (i < s.length() && Character.isWhitespace(s.charAt(i))) {
            i++;
        }
    }

    private IllegalArgumentException fail(String why) {
        return new IllegalArgumentException(why + " at " + i + " in " + s);
    }
}
