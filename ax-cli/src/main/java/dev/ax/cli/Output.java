package dev.ax.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.PrintWriter;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;

/** Human output: aligned plain-text tables, key/value blocks, error messages; and pretty JSON for {@code --json}. */
public final class Output {
    /** Shown for a value that is absent or null, so that columns never collapse. */
    public static final String NONE = "-";

    private static final String GAP = "  ";
    private static final ObjectMapper PRETTY = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private Output() {}

    /** Columns padded to their widest cell; the last column is not padded (no trailing spaces). */
    public static void table(PrintWriter out, List<String> headers, List<List<String>> rows) {
        int[] widths = new int[headers.size()];
        List<List<String>> all = new ArrayList<>(rows.size() + 1);
        all.add(headers);
        all.addAll(rows);
        for (List<String> row : all) {
            for (int i = 0; i < widths.length; i++) {
                widths[i] = Math.max(widths[i], cell(row, i).length());
            }
        }
        for (List<String> row : all) {
            StringBuilder line = new StringBuilder();
            for (int i = 0; i < widths.length; i++) {
                String cell = cell(row, i);
                line.append(cell);
                if (i < widths.length - 1) {
                    line.append(" ".repeat(widths[i] - cell.length())).append(GAP);
                }
            }
            out.println(line.toString().stripTrailing());
        }
    }

    /** {@code key: value} lines with the values aligned; null values show as {@value #NONE}. */
    public static void fields(PrintWriter out, List<String[]> pairs) {
        int width = pairs.stream().mapToInt(p -> p[0].length()).max().orElse(0) + 1;
        for (String[] p : pairs) {
            String key = p[0] + ":";
            out.println(key + " ".repeat(width - key.length() + 1) + (p[1] == null ? NONE : p[1]));
        }
    }

    public static void json(PrintWriter out, JsonNode node) {
        try {
            out.println(PRETTY.writeValueAsString(node));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot print a JSON tree", e);
        }
    }

    /** The server's message, then one {@code "  field: reason"} line per field error. */
    public static void error(PrintWriter err, ApiException e) {
        err.println(e.getMessage());
        for (ApiException.FieldError f : e.fields()) {
            err.println("  " + (f.field().isEmpty() ? "(task)" : f.field()) + ": " + f.reason());
        }
    }

    /** A text field, or {@value #NONE} when absent or null. */
    public static String text(JsonNode node, String field) {
        JsonNode v = node.path(field);
        return v.isMissingNode() || v.isNull() ? NONE : v.asText();
    }

    /** An instant field to whole seconds ({@code 2026-11-29T18:00:00Z}); other text is shown as it came. */
    public static String instant(JsonNode node, String field) {
        return instant(node, field, ChronoUnit.SECONDS);
    }

    /** An instant field truncated to {@code unit} (events of one run often share a second). */
    public static String instant(JsonNode node, String field, ChronoUnit unit) {
        String s = text(node, field);
        if (s.equals(NONE)) {
            return s;
        }
        try {
            return Instant.parse(s).truncatedTo(unit).toString();
        } catch (DateTimeParseException e) {
            return s;
        }
    }

    /** A task trigger in one short phrase: {@code cron 0 2 * * * (Asia/Shanghai)}, {@code every 300s}, {@code event}. */
    public static String trigger(JsonNode trigger) {
        String type = trigger.path("type").asText("?");
        String zone =
                trigger.hasNonNull("timezone") ? " (" + trigger.get("timezone").asText() + ")" : "";
        return switch (type) {
            case "cron" -> "cron " + trigger.path("expression").asText() + zone;
            case "interval" -> "every " + trigger.path("intervalSeconds").asText() + "s";
            default -> type;
        };
    }

    private static String cell(List<String> row, int i) {
        String s = i < row.size() ? row.get(i) : null;
        return s == null ? NONE : s;
    }
}
