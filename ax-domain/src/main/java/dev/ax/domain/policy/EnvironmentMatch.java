package dev.ax.domain.policy;

import java.util.Collection;

/**
 * Which executors may run a task with {@code environment} labels: those carrying ALL of them
 * ({@code ["prod"]} never runs on an executor labelled only {@code test}; {@code ["prod", "eu"]}
 * needs both). A task without labels runs on any executor of its group, labelled or not.
 * The claim query applies the same rule in SQL; this is its statement in Java (warnings, tests).
 */
public final class EnvironmentMatch {
    private EnvironmentMatch() {}

    public static boolean matches(Collection<String> required, Collection<String> executorLabels) {
        return executorLabels.containsAll(required);
    }
}
