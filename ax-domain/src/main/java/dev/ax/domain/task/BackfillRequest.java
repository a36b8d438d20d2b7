package dev.ax.domain.task;

import java.time.LocalDate;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code POST /api/tasks/{name}/backfill}: run the task for every slot of a date range.
 *
 * @param reprocess   what to do with slots that already have a run: {@code none} (skip them),
 *                    {@code failed} (run again those whose run failed, was terminated or canceled),
 *                    {@code all} (run every slot again)
 * @param cascade     also backfill the tasks that depend on this one ({@code dependsOn}, transitively), for the same
 *                    dates; their runs wait for the same-date upstream runs like scheduled ones do
 */
public record BackfillRequest(
        LocalDate from,
        LocalDate to,
        int parallelism,
        String reprocess,
        boolean newestFirst,
        Map<String, Object> params,
        boolean dryRun,
        boolean cascade) {
    public static final int DEFAULT_PARALLELISM = 1;
    public static final int MAX_PARALLELISM = 100;
    static final Set<String> FIELDS =
            Set.of("from", "to", "parallelism", "reprocess", "order", "params", "dryRun", "cascade");
    static final List<String> REPROCESS = List.of("none", "failed", "all");

    public BackfillRequest {
        params = params == null ? Map.of() : Map.copyOf(params);
    }

    @SuppressWarnings("unchecked")
    public static BackfillRequest parse(Map<String, Object> body) {
        List<FieldError> errors = new ArrayList<>();
        body.keySet().stream()
                .filter(k -> !FIELDS.contains(k))
                .forEach(k -> errors.add(new FieldError(k, "unknown field")));
        LocalDate from = date(body.get("from"), "from", errors);
        LocalDate to = date(body.get("to"), "to", errors);
        if (from != null && to != null && to.isBefore(from)) {
            errors.add(new FieldError("to", "must not be before from (" + from + ")"));
        }
        int parallelism = DEFAULT_PARALLELISM;
        Object p = body.get("parallelism");
        if (p != null) {
            if (p instanceof Integer i && i >= 1 && i <= MAX_PARALLELISM) {
                parallelism = i;
            } else {
                errors.add(new FieldError("parallelism", "must be an integer between 1 and " + MAX_PARALLELISM));
            }
        }
        String reprocess = body.get("reprocess") == null ? "none" : String.valueOf(body.get("reprocess"));
        if (!REPROCESS.contains(reprocess)) {
            errors.add(new FieldError("reprocess", "must be one of none, failed, all"));
        }
        String order = body.get("order") == null ? "oldest" : String.valueOf(body.get("order"));
        if (!order.equals("oldest") && !order.equals("newest")) {
            errors.add(new FieldError("order", "must be oldest or newest"));
        }
        Object params = body.get("params");
        if (params != null && !(params instanceof Map<?, ?>)) {
            errors.add(new FieldError("params", "must be an object"));
        }
        Object dryRun = body.get("dryRun");
        if (dryRun != null && !(dryRun instanceof Boolean)) {
            errors.add(new FieldError("dryRun", "must be true or false"));
        }
        Object cascade = body.get("cascade");
        if (cascade != null && !(cascade instanceof Boolean)) {
            errors.add(new FieldError("cascade", "must be true or false"));
        }
        if (!errors.isEmpty()) {
            throw new ValidationException(errors);
        }
        return new BackfillRequest(
                from,
                to,
                parallelism,
                reprocess,
                order.equals("newest"),
                params == null ? Map.of() : new LinkedHashMap<>((Map<String, Object>) params),
                Boolean.TRUE.equals(dryRun),
                Boolean.TRUE.equals(cascade));
    }

    /** The same range and pace for a dependent task of a cascade: without the parameters, which belong to the first task. */
    public BackfillRequest forDependent() {
        return new BackfillRequest(from, to, parallelism, reprocess, newestFirst, Map.of(), dryRun, false);
    }

    private static LocalDate date(Object value, String field, List<FieldError> errors) {
        if (value == null) {
            errors.add(new FieldError(field, "is required: a date like 2026-10-01"));
            return null;
        }
        try {
            return LocalDate.parse(String.valueOf(value));
        } catch (DateTimeParseException e) {
            errors.add(new FieldError(field, "must be a date like 2026-10-01"));
            return null;
        }
    }
}
