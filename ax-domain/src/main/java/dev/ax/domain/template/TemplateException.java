package dev.ax.domain.template;

/**
 * A template that cannot be rendered: a malformed template, a variable without a value, or a value
 * that cannot be written where it stands. {@link #parameter()} names the trigger parameter at fault,
 * when one is, so that an API can answer with the field {@code params.NAME}.
 */
public final class TemplateException extends IllegalArgumentException {
    private final String parameter;

    public TemplateException(String message) {
        this(message, null);
    }

    public TemplateException(String message, String parameter) {
        super(message);
        this.parameter = parameter;
    }

    /** The parameter whose value could not be written, or {@code null} when the template itself is at fault. */
    public String parameter() {
        return parameter;
    }
}
