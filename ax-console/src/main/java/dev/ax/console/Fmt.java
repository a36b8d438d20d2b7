package dev.ax.console;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.Locale;

/**
 * How values read on a page. Times are rendered as UTC text inside {@code <time datetime>}; the
 * page's script shows them in the viewer's zone, with the UTC text on hover.
 */
public final class Fmt {
    private static final DateTimeFormatter UTC =
            DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss 'UTC'").withZone(ZoneOffset.UTC);
    private static final ObjectMapper PRETTY = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private Fmt() {}

    /** A time to show: {@code iso} for the {@code datetime} attribute, {@code utc} for the text. Null renders a dash. */
    public record Time(String iso, String utc) {
        public static Time of(Instant t) {
            return t == null ? null : new Time(t.truncatedTo(ChronoUnit.MILLIS).toString(), UTC.format(t));
        }
    }

    /** "1.2 s", "3 min 4 s", "2 h 5 min": how long something took or waits. */
    public static String duration(Duration d) {
        if (d == null) {
            return null;
        }
        long ms = Math.abs(d.toMillis());
        String sign = d.isNegative() ? "-" : "";
        if (ms < 1000) {
            return sign + ms + " ms";
        }
        if (ms < 60_000) {
            return sign + String.format(Locale.ROOT, "%.1f s", ms / 1000.0);
        }
        long s = ms / 1000;
        if (s < 3600) {
            return sign + (s / 60) + " min " + (s % 60) + " s";
        }
        if (s < 86_400) {
            return sign + (s / 3600) + " h " + (s % 3600 / 60) + " min";
        }
        return sign + (s / 86_400) + " d " + (s % 86_400 / 3600) + " h";
    }

    public static String between(Instant from, Instant to) {
        return from == null || to == null ? null : duration(Duration.between(from, to));
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
