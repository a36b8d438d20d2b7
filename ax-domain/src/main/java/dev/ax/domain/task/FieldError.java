package dev.ax.domain.task;

/** One thing wrong with an input: where ({@code policy.timeoutSeconds}) and why. */
public record FieldError(String field, String reason) {}
