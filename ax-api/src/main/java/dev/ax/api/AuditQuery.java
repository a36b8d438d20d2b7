package dev.ax.api;

import dev.ax.domain.task.ValidationException;
import dev.ax.store.AuditStore.Filter;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;

/** The audit log's filters as people write them, for {@code GET /api/audit} and the console's page alike. */
public final class AuditQuery {
    private AuditQuery() {}

    /**
     * {@code from} and {@code to} are instants ({@code 2026-12-03T10:00:00Z}) or dates ({@code 2026-12-03}, midnight
     * UTC); blank filters are none. A time that parses as neither is a 400 on its field.
     */
    public static Filter filter(
            String actor, String team, String target, String from, String to, long beforeId, int limit) {
        return new Filter(
                blank(actor), blank(team), blank(target), time(from, "from"), time(to, "to"), beforeId, limit);
    }

    private static Instant time(String s, String field) {
        if (blank(s) == null) {
            return null;
        }
        try {
            return s.strip().length() == 10
                    ? LocalDate.parse(s.strip()).atStartOfDay(ZoneOffset.UTC).toInstant()
                    : Instant.parse(s.strip());
        } catch (DateTimeParseException e) {
            throw new ValidationException(
                    field, "'" + s + "' is neither an instant (2026-12-03T10:00:00Z) nor a date (2026-12-03)");
        }
    }

    private static String blank(String s) {
        return s == null || s.isBlank() ? null : s.strip();
    }
}
