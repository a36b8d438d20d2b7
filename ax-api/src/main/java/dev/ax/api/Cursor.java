package dev.ax.api;

import dev.ax.domain.task.ValidationException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * Page cursors: opaque to clients (base64url of the last key seen), so that the paging key can
 * change without breaking them. A cursor that does not decode is a 400 on the {@code cursor} field.
 */
public final class Cursor {
    private static final String FIELD = "cursor";

    private Cursor() {}

    public static String ofName(String lastName) {
        return encode("n:" + lastName);
    }

    public static String ofId(long lastId) {
        return encode("i:" + lastId);
    }

    /** The name after which the next page starts, or null for the first page. */
    public static String name(String cursor) {
        return decode(cursor, "n:");
    }

    /** The id below which the next page starts (lists newest first), or {@code Long.MAX_VALUE} for the first page. */
    public static long idBefore(String cursor) {
        String raw = decode(cursor, "i:");
        if (raw == null) {
            return Long.MAX_VALUE;
        }
        try {
            return Long.parseLong(raw);
        } catch (NumberFormatException e) {
            throw new ValidationException(FIELD, "not a cursor this API returned");
        }
    }

    private static String encode(String raw) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(raw.getBytes(StandardCharsets.UTF_8));
    }

    private static String decode(String cursor, String prefix) {
        if (cursor == null || cursor.isBlank()) {
            return null;
        }
        String raw;
        try {
            raw = new String(Base64.getUrlDecoder().decode(cursor), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            throw new ValidationException(FIELD, "not a cursor this API returned");
        }
        if (!raw.startsWith(prefix)) {
            throw new ValidationException(FIELD, "not a cursor for this list");
        }
        return raw.substring(prefix.length());
    }
}
