package dev.ax.domain.policy;

import dev.ax.domain.run.RunState;
import dev.ax.domain.task.Dependency;
import dev.ax.domain.task.DependencyPolicy.OnUpstreamFailure;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Whether a run whose task has {@code dependsOn} may start: a pure function of what its upstream
 * runs are doing. The scheduler reads one {@link Upstream} per dependency (under the task's row
 * lock), calls {@link #decide}, and applies the verdict.
 */
public record Readiness(Verdict verdict, String reason, List<Upstream> unmet) {

    public enum Verdict {
        /** Every dependency succeeded: the run goes on to admission (the concurrency gate). */
        READY,
        /** Some dependency has not succeeded yet (or failed, and the policy is WAIT): keep waiting. */
        WAIT,
        /** An upstream run failed and the policy is SKIP: the run ends SKIPPED. */
        SKIP,
        /** An upstream run failed and the policy is FAIL: the run ends FAILED. */
        FAIL,
        /** The wait deadline passed with dependencies still unmet: the run ends FAILED and an alert is raised. */
        DEADLINE
    }

    /**
     * What one dependency's upstream is doing.
     *
     * @param key        what it is matched on: the business date ({@code 2026-10-01}), the window start, or the previous slot
     * @param instanceId the upstream run that decides it (the newest matching one), or null when none exists
     * @param state      that run's state, or null when none exists
     */
    public record Upstream(Dependency dependency, String key, Long instanceId, RunState state) {
        public Upstream {
            Objects.requireNonNull(dependency, "dependency");
        }

        public boolean met() {
            return state == RunState.SUCCESS;
        }

        /** The upstream run ended without success (a retry, if any, would be a newer run). */
        public boolean failed() {
            return state != null && state.isTerminal() && !state.isSuccessful();
        }

        public String describe() {
            String what = dependency.task() + " (" + dependency.scope().wireName() + " " + key + ")";
            if (state == null) {
                return what + ": no run yet";
            }
            return what + ": " + (failed() ? "ended " : "") + state + (instanceId == null ? "" : ", run " + instanceId);
        }
    }

    /** One upstream run that may decide a dependency. */
    public record Run(long id, RunState state) {}

    /**
     * Which of the upstream runs matching a dependency (same date, same window, a slot and its
     * retries; newest first) decides it: a run still going that is newer than the newest success
     * (a re-run in progress); else the newest success; else a run still going (it may succeed);
     * else the newest run, which ended without success. So a run skipped because its task was busy,
     * or a failed attempt retried by a newer run, never hides the run that matters.
     */
    public static Optional<Run> decisive(List<Run> newestFirst) {
        for (Run r : newestFirst) {
            if (r.state() == RunState.SUCCESS) {
                return Optional.of(r);
            }
            if (!r.state().isTerminal()) {
                return Optional.of(r);
            }
        }
        return newestFirst.stream().findFirst();
    }

    public static Readiness decide(List<Upstream> upstreams, OnUpstreamFailure onFailure, boolean deadlinePassed) {
        List<Upstream> unmet = upstreams.stream().filter(u -> !u.met()).toList();
        if (unmet.isEmpty()) {
            return new Readiness(
                    Verdict.READY,
                    "dependencies met: "
                            + String.join(
                                    "; ",
                                    upstreams.stream().map(Upstream::describe).toList()),
                    List.of());
        }
        List<Upstream> failed = unmet.stream().filter(Upstream::failed).toList();
        String failures =
                String.join("; ", failed.stream().map(Upstream::describe).toList());
        if (!failed.isEmpty() && onFailure == OnUpstreamFailure.SKIP) {
            return new Readiness(Verdict.SKIP, "upstream failed (onUpstreamFailure SKIP): " + failures, unmet);
        }
        if (!failed.isEmpty() && onFailure == OnUpstreamFailure.FAIL) {
            return new Readiness(Verdict.FAIL, "upstream failed (onUpstreamFailure FAIL): " + failures, unmet);
        }
        String waiting =
                String.join("; ", unmet.stream().map(Upstream::describe).toList());
        if (deadlinePassed) {
            return new Readiness(
                    Verdict.DEADLINE, "dependency wait deadline passed; still waiting for " + waiting, unmet);
        }
        return new Readiness(Verdict.WAIT, "waiting for " + waiting, unmet);
    }
}
