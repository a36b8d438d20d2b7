package dev.ax.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.ValueInstantiationException;
import dev.ax.domain.task.ValidationException;
import io.javalin.http.Context;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Request bodies. Broken JSON is a 400 on the field {@code ""} ("malformed JSON: ..."), and so is JSON
 * nested deeper than {@link Json#MAX_NESTING_DEPTH}; a body of the wrong shape is a 400 on the path
 * Jackson was at. Either way the handler never runs, so nothing is written.
 */
final class Bodies {
    private Bodies() {}

    /** The body as a plain JSON tree (maps, lists, strings, numbers), or null when it is empty. */
    static Object tree(Context ctx, ObjectMapper json) {
        String body = ctx.body();
        if (body.isBlank()) {
            return null;
        }
        try {
            return json.readValue(body, Object.class);
        } catch (JsonProcessingException e) {
            throw malformed(e);
        }
    }

    /** The body as a JSON object, or an empty map when the body is empty. */
    @SuppressWarnings("unchecked")
    static Map<String, Object> object(Context ctx, ObjectMapper json) {
        Object tree = tree(ctx, json);
        if (tree == null) {
            return Map.of();
        }
        if (!(tree instanceof Map<?, ?> map)) {
            throw new ValidationException("", "must be a JSON object");
        }
        return (Map<String, Object>) map;
    }

    /** The body as a protocol record. */
    static <T> T read(Context ctx, ObjectMapper json, Class<T> type) {
        String body = ctx.body();
        if (body.isBlank()) {
            throw new ValidationException("", "a JSON body is required");
        }
        T value;
        try {
            value = json.readValue(body, type);
        } catch (ValueInstantiationException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            throw new ValidationException(
                    path(e),
                    "invalid " + type.getSimpleName() + ": "
                            + (cause instanceof NullPointerException
                                    ? "a required field is missing"
                                    : cause.getMessage()));
        } catch (JsonMappingException e) {
            throw tooDeep(e) ? malformed(e) : new ValidationException(path(e), e.getOriginalMessage());
        } catch (JsonProcessingException e) {
            throw malformed(e);
        }
        if (value == null) {
            throw new ValidationException("", "a JSON object is required, not null");
        }
        return value;
    }

    private static ValidationException malformed(JsonProcessingException e) {
        if (tooDeep(e)) {
            return new ValidationException(
                    "", "JSON nested deeper than " + Json.MAX_NESTING_DEPTH + " levels of arrays and objects");
        }
        return new ValidationException(
                "",
                "malformed JSON: " + e.getOriginalMessage()
                        + (e.getLocation() == null
                                ? ""
                                : " at line " + e.getLocation().getLineNr() + ", column "
                                        + e.getLocation().getColumnNr()));
    }

    private static boolean tooDeep(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof StreamConstraintsException c
                    && c.getMessage() != null
                    && c.getMessage().contains("nesting depth")) {
                return true;
            }
        }
        return false;
    }

    private static String path(JsonMappingException e) {
        return e.getPath().stream()
                .map(ref -> ref.getFieldName() != null ? ref.getFieldName() : "[" + ref.getIndex() + "]")
                .collect(Collectors.joining("."))
                .replace(".[", "[");
    }
}
