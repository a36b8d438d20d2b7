package dev.ax.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.ax.domain.state.IllegalTransitionException;
import dev.ax.domain.task.FieldError;
import dev.ax.domain.task.ValidationException;
import dev.ax.scheduler.ConflictException;
import dev.ax.scheduler.DrainingException;
import dev.ax.scheduler.ForbiddenException;
import dev.ax.scheduler.KeyReusedException;
import dev.ax.scheduler.NotFoundException;
import dev.ax.store.ConcurrentChangeException;
import dev.ax.store.StoreException;
import io.javalin.http.Context;
import io.javalin.http.HttpResponseException;
import io.javalin.router.EndpointNotFound;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Exceptions to HTTP statuses, in one place. Every error body has one shape:
 * {@code {"error":{"status":400,"message":"...","fields":[{"field":"trigger.expression","reason":"..."}]}}}.
 */
public final class ErrorMapper {
    private static final Logger log = LoggerFactory.getLogger(ErrorMapper.class);
    private static final String WRITTEN = "ax.error-written";

    /** The error body. {@code fields} is present for input errors only. */
    public record ErrorBody(Error error) {}

    public record Error(
            int status,
            String message,
            @JsonInclude(JsonInclude.Include.NON_EMPTY) List<FieldError> fields) {}

    private ErrorMapper() {}

    public static void handle(Exception e, Context ctx) {
        switch (e) {
            case ValidationException v -> write(ctx, 400, v.getMessage(), v.errors());
            case ApiException a -> write(ctx, a.status(), a.getMessage(), List.of());
            case NotFoundException n -> write(ctx, 404, n.getMessage(), List.of());
            case ConflictException c -> write(ctx, 409, c.getMessage(), List.of());
            case DrainingException d -> write(ctx, 503, d.getMessage(), List.of());
            case KeyReusedException k -> write(ctx, 422, k.getMessage(), List.of());
            case ForbiddenException f -> write(ctx, 403, f.getMessage(), List.of());
            case ConcurrentChangeException c -> write(ctx, 409, c.getMessage() + "; reload and try again", List.of());
            case IllegalTransitionException t -> write(ctx, 409, t.getMessage(), List.of());
            case EndpointNotFound n -> writeNoRoute(ctx);
            case HttpResponseException h -> write(ctx, h.getStatus(), h.getMessage(), List.of());
            case StoreException s -> {
                log.error("{} {} failed in the database", ctx.method(), ctx.path(), s);
                write(ctx, 503, "database error: " + s.getMessage(), List.of());
            }
            default -> {
                log.error("{} {} failed", ctx.method(), ctx.path(), e);
                write(
                        ctx,
                        500,
                        "internal error: " + e.getClass().getSimpleName()
                                + (e.getMessage() == null ? "" : ": " + e.getMessage()),
                        List.of());
            }
        }
    }

    /** The status {@link #handle} answers {@code e} with. */
    public static int statusOf(Exception e) {
        return switch (e) {
            case ValidationException v -> 400;
            case ApiException a -> a.status();
            case NotFoundException n -> 404;
            case ConflictException c -> 409;
            case DrainingException d -> 503;
            case KeyReusedException k -> 422;
            case ForbiddenException f -> 403;
            case ConcurrentChangeException c -> 409;
            case IllegalTransitionException t -> 409;
            case EndpointNotFound n -> 404;
            case HttpResponseException h -> h.getStatus();
            case StoreException s -> 503;
            default -> 500;
        };
    }

    /** Javalin's own 404 (no such route) in our shape; a 404 a handler already explained is left alone. */
    public static void noRoute(Context ctx) {
        if (ctx.attribute(WRITTEN) == null) {
            writeNoRoute(ctx);
        }
    }

    private static void writeNoRoute(Context ctx) {
        write(ctx, 404, "no route " + ctx.method() + " " + ctx.path() + "; see /api/openapi.json", List.of());
    }

    public static void write(Context ctx, int status, String message, List<FieldError> fields) {
        ctx.attribute(WRITTEN, Boolean.TRUE);
        ctx.status(status).json(new ErrorBody(new Error(status, message, fields)));
    }
}
