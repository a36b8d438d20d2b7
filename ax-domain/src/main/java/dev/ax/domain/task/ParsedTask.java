package dev.ax.domain.task;

import java.util.List;
import java.util.Objects;

/**
 * A definition that passed validation, with what the user should still hear about it (an alert
 * channel this server does not have, a plain value where a secret belongs). The API returns
 * the warnings with its 2xx answer; they never block a save.
 */
public record ParsedTask(TaskDefinition definition, List<String> warnings) {
    public ParsedTask {
        Objects.requireNonNull(definition, "definition");
        warnings = warnings == null ? List.of() : List.copyOf(warnings);
    }
}
