package dev.ax.domain.task;

import java.util.List;

/** Input that AX refuses. The API answers 400 with every error; nothing has been written. */
public final class ValidationException extends RuntimeException {
    private final List<FieldError> errors;

    public ValidationException(List<FieldError> errors) {
        super(describe(errors));
        this.errors = List.copyOf(errors);
    }

    public ValidationException(String field, String reason) {
        this(List.of(new FieldError(field, reason)));
    }

    public List<FieldError> errors() {
        return errors;
    }

    private static String describe(List<FieldError> errors) {
        StringBuilder sb = new StringBuilder("invalid input:");
        for (FieldError e : errors) {
            sb.append(' ').append(e.field()).append(": ").append(e.reason()).append(';');
        }
        return sb.toString();
    }
}
