package dev.ax.api;

import dev.ax.domain.task.ValidationException;
import dev.ax.scheduler.Secrets;
import io.javalin.http.Context;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * Secrets, for admins: set ({@code PUT /api/secrets/{name}} with {@code {"value":"…"}}), list, delete, rotate the key.
 * No answer ever holds a value: a secret comes back as its name, who set it when, and its key's id.
 */
final class SecretHandlers {
    private final ApiContext api;

    SecretHandlers(ApiContext api) {
        this.api = api;
    }

    /** One secret as answers show it. */
    record SecretView(
            String name, String keyId, Instant createdAt, String createdBy, Instant updatedAt, String updatedBy) {
        static SecretView of(Secrets.Info s) {
            return new SecretView(s.name(), s.keyId(), s.createdAt(), s.createdBy(), s.updatedAt(), s.updatedBy());
        }
    }

    /** The answer of a rotation: the new key's id, the old one's, and how many secrets were sealed again. */
    record RotatedView(String keyId, String previousKeyId, int secrets) {}

    /** 201 when the name was new, 200 when its value was replaced; the body is the secret without its value. */
    void set(Context ctx) {
        Map<String, Object> body = Bodies.object(ctx, api.json());
        for (String field : body.keySet()) {
            if (!field.equals("value")) {
                throw new ValidationException(field, "unknown field; the body is {\"value\":\"…\"}");
            }
        }
        Secrets.Saved saved = api.node().secrets().set(ctx.pathParam("name"), body.get("value"), Auth.actor(ctx));
        ctx.status(saved.created() ? 201 : 200).json(SecretView.of(saved.secret()));
    }

    void list(Context ctx) {
        List<SecretView> items =
                api.node().secrets().list().stream().map(SecretView::of).toList();
        ctx.json(new Views.Page<>(items, null));
    }

    void delete(Context ctx) {
        api.node().secrets().delete(ctx.pathParam("name"), Auth.actor(ctx));
        ctx.status(204);
    }

    void rotateKey(Context ctx) {
        Secrets.Rotated r = api.node().secrets().rotateKey(Auth.actor(ctx));
        ctx.json(new RotatedView(r.keyId(), r.previousKeyId(), r.secrets()));
    }
}
