package dev.ax.console;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;

/**
 * How values read on a page, whatever the language. A time is shown in the person's zone ({@link I18n#time}), its UTC
 * text on hover.
 */
public final class Fmt {
    private static final DateTimeFormatter UTC =
            DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss 'UTC'").withZone(ZoneOffset.UTC);
    private static final ObjectMapper PRETTY = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private Fmt() {}

    /** A time to show; null renders a dash. */
    public record Time(Instant at) {
        public static Time of(Instant t) {
            return t == null ? null : new Time(t);
        }

        /** For the {@code datetime} attribute. */
        public String iso() {
            return at.truncatedTo(ChronoUnit.MILLIS).toString();
        }

        /** "2026-12-01 02:00:00 UTC", on hover. */
        public String utc() {
            return UTC.format(at);
        }
    }

    /** A JSON tree, indented for reading; the editor shows the same text. */
    public static String prettyJson(Object tree) {
        try {
            return PRETTY.writeValueAsString(tree);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a JSON tree from the codec always serialises", e);
        }
    }

    /** A value of a diff entry: JSON text, so that "absent", {@code null} and {@code "null"} read differently. */
    public static String jsonValue(Object v) {
        try {
            return v == null ? "—" : new ObjectMapper().writeValueAsString(v);
        } catch (JsonProcessingException e) {
            return String.valueOf(v);
        }
    }

    /** A nullable number as text ("—" for none). */
    public static String num(Number n) {
        return n == null ? "—" : n.toString();
    }
}
