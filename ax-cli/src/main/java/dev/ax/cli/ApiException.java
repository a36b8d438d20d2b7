package dev.ax.cli;

import java.util.List;

/**
 * The server answered with an error: {@code {"error":{"status":400,"message":"...","fields":[{"field","reason"}]}}}.
 *
 * @see ApiClient
 */
public final class ApiException extends CliException {
    private final int status;
    private final List<FieldError> fields;
    private final String body;

    public ApiException(int status, String message, List<FieldError> fields, String body) {
        super(ExitCodes.REFUSED, message);
        this.status = status;
        this.fields = List.copyOf(fields);
        this.body = body;
    }

    public int status() {
        return status;
    }

    /** The per-field reasons of a validation error; empty for other errors. */
    public List<FieldError> fields() {
        return fields;
    }

    /** The answer exactly as the server sent it, for {@code --json}. */
    public String body() {
        return body;
    }

    public record FieldError(String field, String reason) {}
}
