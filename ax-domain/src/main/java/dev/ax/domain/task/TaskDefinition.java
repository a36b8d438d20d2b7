package dev.ax.domain.task;

import java.util.Objects;

/**
 * The recipe of a task, as the user wrote it (the seed's JSON: {@code taskName}, {@code trigger},
 * {@code action}, {@code policy}) after validation. Immutable; every change makes a new version.
 * {@link TaskDefinitionCodec} turns JSON trees into this and back.
 */
public record TaskDefinition(
        String taskName,
        String description,
        String owner,
        Trigger trigger,
        Action action,
        Policy policy,
        DependencyPolicy dependencies) {

    public TaskDefinition {
        Objects.requireNonNull(taskName, "taskName");
        Objects.requireNonNull(trigger, "trigger");
        Objects.requireNonNull(action, "action");
        Objects.requireNonNull(policy, "policy");
        dependencies = dependencies == null ? DependencyPolicy.NONE : dependencies;
    }

    /** A definition without {@code dependsOn}. */
    public TaskDefinition(String taskName, String description, String owner, Trigger trigger, Action action, Policy policy) {
        this(taskName, description, owner, trigger, action, policy, DependencyPolicy.NONE);
    }

    /** The executor group that runs this task's action. */
    public String group() {
        return action.group();
    }
}
