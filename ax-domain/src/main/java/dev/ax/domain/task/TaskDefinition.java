package dev.ax.domain.task;

import java.util.List;
import java.util.Objects;

/**
 * The recipe of a task, as the user wrote it (the task JSON: {@code taskName}, {@code trigger},
 * {@code action}, {@code policy}, {@code params}) after validation. Immutable; every change makes a new
 * version. {@link TaskDefinitionCodec} turns JSON trees into this and back.
 *
 * @param environment executor labels a run of this task needs, all of them (e.g. ["prod"]); empty = any executor of the group
 * @param params      the trigger parameters it declares; {@link Parameters#NONE} takes any
 * @param team        the team that owns it (its operators run it, its admins edit it); null = none, only global roles
 */
public record TaskDefinition(
        String taskName,
        String description,
        String owner,
        Trigger trigger,
        Action action,
        Policy policy,
        DependencyPolicy dependencies,
        List<String> environment,
        Parameters params,
        String team) {

    public TaskDefinition {
        Objects.requireNonNull(taskName, "taskName");
        Objects.requireNonNull(trigger, "trigger");
        Objects.requireNonNull(action, "action");
        Objects.requireNonNull(policy, "policy");
        dependencies = dependencies == null ? DependencyPolicy.NONE : dependencies;
        environment = environment == null ? List.of() : List.copyOf(environment);
        params = params == null ? Parameters.NONE : params;
    }

    /** A definition of no team. */
    public TaskDefinition(
            String taskName,
            String description,
            String owner,
            Trigger trigger,
            Action action,
            Policy policy,
            DependencyPolicy dependencies,
            List<String> environment,
            Parameters params) {
        this(taskName, description, owner, trigger, action, policy, dependencies, environment, params, null);
    }

    /** A definition that declares no parameters. */
    public TaskDefinition(
            String taskName,
            String description,
            String owner,
            Trigger trigger,
            Action action,
            Policy policy,
            DependencyPolicy dependencies,
            List<String> environment) {
        this(taskName, description, owner, trigger, action, policy, dependencies, environment, Parameters.NONE);
    }

    /** A definition without {@code dependsOn} and without environment labels. */
    public TaskDefinition(
            String taskName, String description, String owner, Trigger trigger, Action action, Policy policy) {
        this(taskName, description, owner, trigger, action, policy, DependencyPolicy.NONE, List.of());
    }

    /** A definition without environment labels: it runs on any executor of its group. */
    public TaskDefinition(
            String taskName,
            String description,
            String owner,
            Trigger trigger,
            Action action,
            Policy policy,
            DependencyPolicy dependencies) {
        this(taskName, description, owner, trigger, action, policy, dependencies, List.of());
    }

    /** A definition without {@code dependsOn}. */
    public TaskDefinition(
            String taskName,
            String description,
            String owner,
            Trigger trigger,
            Action action,
            Policy policy,
            List<String> environment) {
        this(taskName, description, owner, trigger, action, policy, DependencyPolicy.NONE, environment);
    }

    /** The executor group that runs this task's action. */
    public String group() {
        return action.group();
    }

    /**
     * Whether admitting a new scheduled run decides nothing but its slot: no concurrency limit to
     * find full ({@code overflow: ALLOW}), no approval, no idempotency key to look up, no
     * {@code dependsOn} to wait for. Such runs are admitted READY in batches, and may be created
     * ahead of their slot and wait for it: nothing can change their admission meanwhile, and
     * nothing (an approval, an upstream run) can make one ready before its slot. A task with a
     * canary rollout is admitted one by one all the same (routing by a count of runs must see each
     * run before the next); the scheduler adds that condition, the task row holds it.
     */
    public boolean admitsBySlotAlone() {
        return policy.unlimited()
                && policy.approval() == null
                && policy.idempotencyKey() == null
                && dependencies.isEmpty();
    }
}
