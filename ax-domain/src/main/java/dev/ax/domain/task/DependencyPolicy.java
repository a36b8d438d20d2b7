package dev.ax.domain.task;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * A task's {@code dependsOn} and {@code dependencyPolicy}: what its runs wait for, what they do
 * when an upstream run failed, and how long they may wait at most.
 *
 * @param onUpstreamFailure {@code WAIT} (keep waiting: a retry may still succeed), {@code SKIP} (end
 *                          SKIPPED with the reason) or {@code FAIL} (end FAILED with the reason)
 * @param waitDeadline      how long after its scheduled time a run may wait; then it ends FAILED and
 *                          a {@code DEPENDENCY_DEADLINE} event raises an alert
 */
public record DependencyPolicy(List<Dependency> dependsOn, OnUpstreamFailure onUpstreamFailure, Duration waitDeadline) {
    public static final Duration DEFAULT_WAIT_DEADLINE = Duration.ofHours(24);
    public static final OnUpstreamFailure DEFAULT_ON_UPSTREAM_FAILURE = OnUpstreamFailure.WAIT;
    public static final DependencyPolicy NONE =
            new DependencyPolicy(List.of(), DEFAULT_ON_UPSTREAM_FAILURE, DEFAULT_WAIT_DEADLINE);

    public enum OnUpstreamFailure {
        WAIT,
        SKIP,
        FAIL
    }

    public DependencyPolicy {
        dependsOn = dependsOn == null ? List.of() : List.copyOf(dependsOn);
        Objects.requireNonNull(onUpstreamFailure, "onUpstreamFailure");
        Objects.requireNonNull(waitDeadline, "waitDeadline");
    }

    public boolean isEmpty() {
        return dependsOn.isEmpty();
    }

    /** True if a run ending of {@code upstreamTask} can change whether a run of {@code self} may start. */
    public boolean waitsOn(String self, String upstreamTask) {
        return dependsOn.stream()
                .anyMatch(d -> d.task().equals(upstreamTask)
                        && (d.scope() == Dependency.Scope.PREVIOUS_SLOT || !upstreamTask.equals(self)));
    }
}
