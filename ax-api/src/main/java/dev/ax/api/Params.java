package dev.ax.api;

import dev.ax.domain.task.ValidationException;
import io.javalin.http.Context;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Arrays;
import java.util.Locale;

/** Query parameters, parsed strictly: a bad value is a 400 naming the parameter, never a silent default. */
final class Params {
    static final int MAX_LIMIT = 500;

    private Params() {}

    static String string(Context ctx, String name) {
        String v = ctx.queryParam(name);
        return v == null || v.isBlank() ? null : v;
    }

    static int limit(Context ctx, int dflt) {
        return intIn(ctx, "limit", dflt, 1, MAX_LIMIT);
    }

    static int intIn(Context ctx, String name, int dflt, int min, int max) {
        String v = string(ctx, name);
        if (v == null) {
            return dflt;
        }
        try {
            int n = Integer.parseInt(v.strip());
            if (n < min || n > max) {
                throw new ValidationException(name, "must be between " + min + " and " + max + ", was " + n);
            }
            return n;
        } catch (NumberFormatException e) {
            throw new ValidationException(name, "not a number: '" + v + "'");
        }
    }

    static long nonNegativeLong(Context ctx, String name, long dflt) {
        String v = string(ctx, name);
        if (v == null) {
            return dflt;
        }
        try {
            long n = Long.parseLong(v.strip());
            if (n < 0) {
                throw new ValidationException(name, "must not be negative, was " + n);
            }
            return n;
        } catch (NumberFormatException e) {
            throw new ValidationException(name, "not a number: '" + v + "'");
        }
    }

    static Instant instant(Context ctx, String name) {
        String v = string(ctx, name);
        if (v == null) {
            return null;
        }
        try {
            return Instant.parse(v.strip());
        } catch (DateTimeParseException e) {
            throw new ValidationException(name, "not an ISO-8601 instant like 2026-11-29T18:00:00Z: '" + v + "'");
        }
    }

    static <E extends Enum<E>> E enumOf(Context ctx, String name, Class<E> type) {
        String v = string(ctx, name);
        if (v == null) {
            return null;
        }
        try {
            return Enum.valueOf(type, v.strip().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new ValidationException(
                    name, "unknown value '" + v + "'; one of " + Arrays.toString(type.getEnumConstants()));
        }
    }

    static long pathId(Context ctx, String name) {
        String v = ctx.pathParam(name);
        try {
            return Long.parseLong(v);
        } catch (NumberFormatException e) {
            throw new ValidationException(name, "not an id: '" + v + "'");
        }
    }
}
