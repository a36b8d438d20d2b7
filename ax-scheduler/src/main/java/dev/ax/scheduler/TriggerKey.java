package dev.ax.scheduler;

import dev.ax.domain.task.ValidationException;
import dev.ax.store.Json;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;
import java.util.TreeMap;

/**
 * A caller's idempotency key for a trigger ({@code Idempotency-Key}): the same key for the same task
 * within {@link SchedulerConfig#idempotencyWindow} answers with the run the first request made. Not
 * to be confused with a task's {@code policy.idempotencyKey}, which names a unit of business work.
 *
 * @param value 1 to {@value #MAX_LENGTH} printable ASCII characters (space to tilde)
 */
public record TriggerKey(String value) {
    public static final int MAX_LENGTH = 200;
    /** The field a refused key is reported under, unless the caller names the header it came in. */
    public static final String FIELD = "Idempotency-Key";

    public TriggerKey {
        String reason = problem(value);
        if (reason != null) {
            throw new ValidationException(FIELD, reason);
        }
    }

    /** The key sent under {@code field} (a header name), refused under that name when it is not one. */
    public static TriggerKey of(String field, String value) {
        String reason = problem(value);
        if (reason != null) {
            throw new ValidationException(field, reason);
        }
        return new TriggerKey(value);
    }

    /** Why {@code value} is no key, or null when it is one. */
    static String problem(String value) {
        if (value == null || value.isEmpty()) {
            return "must not be empty: 1 to " + MAX_LENGTH + " printable ASCII characters";
        }
        if (value.length() > MAX_LENGTH) {
            return "must be at most " + MAX_LENGTH + " characters, was " + value.length();
        }
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c < 0x20 || c > 0x7e) {
                return "must be printable ASCII characters (space to ~); character " + (i + 1) + " is U+"
                        + String.format("%04X", (int) c);
            }
        }
        return null;
    }

    /**
     * What a trigger asks for, as a SHA-256 over canonical JSON (keys sorted at every level): the same
     * request sent again gives the same hash, whatever the order of its fields; any other parameters or
     * {@code force} give another.
     */
    static String requestHash(String taskName, Map<String, Object> params, boolean force) {
        Map<String, Object> request = new TreeMap<>();
        request.put("taskName", taskName);
        request.put("params", params == null ? Map.of() : params);
        request.put("force", force);
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256")
                    .digest(Json.canonical(request).getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JDK", e);
        }
    }

    @Override
    public String toString() {
        return value;
    }
}
