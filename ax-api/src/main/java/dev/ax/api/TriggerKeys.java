package dev.ax.api;

import dev.ax.domain.task.ValidationException;
import dev.ax.scheduler.TriggerKey;
import io.javalin.http.Context;

/**
 * A trigger's idempotency key, from the {@code Idempotency-Key} header or its synonym
 * {@code X-AX-Request-ID} (the header AX's own HTTP actions send, so a run that triggers a task over
 * HTTP is retried safely as it is). A bad key is a 400 naming the header it came in.
 */
final class TriggerKeys {
    static final String HEADER = TriggerKey.FIELD;
    static final String SYNONYM = "X-AX-Request-ID";

    private TriggerKeys() {}

    /** The request's key, or null when it sends none. */
    static TriggerKey of(Context ctx) {
        String key = ctx.header(HEADER);
        String requestId = ctx.header(SYNONYM);
        if (key != null && requestId != null && !key.equals(requestId)) {
            throw new ValidationException(
                    SYNONYM, "differs from " + HEADER + ", its synonym: send one of them, or the same key in both");
        }
        if (key != null) {
            return TriggerKey.of(HEADER, key);
        }
        if (requestId != null) {
            try {
                return TriggerKey.of(SYNONYM, requestId);
            } catch (ValidationException e) {
                throw new ValidationException(
                        SYNONYM, e.errors().getFirst().reason() + " (it is the synonym of " + HEADER + ")");
            }
        }
        return null;
    }
}
