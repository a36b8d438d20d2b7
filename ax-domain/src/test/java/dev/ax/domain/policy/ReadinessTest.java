package dev.ax.domain.policy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.domain.policy.Readiness.Upstream;
import dev.ax.domain.policy.Readiness.Verdict;
import dev.ax.domain.run.RunState;
import dev.ax.domain.task.Dependency;
import dev.ax.domain.task.Dependency.Scope;
import dev.ax.domain.task.DependencyPolicy.OnUpstreamFailure;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * One row per situation: the states of two upstream runs ({@code -} = no run yet), the policy,
 * whether the deadline passed, and the verdict.
 */
class ReadinessTest {

    @ParameterizedTest(name = "layer1 {0}, layer2 {1}, {2}, deadline passed {3} -> {4}")
    @CsvSource(
            nullValues = "-",
            value = {
                // all met
                "SUCCESS,  SUCCESS,    WAIT, false, READY",
                "SUCCESS,  SUCCESS,    FAIL, true,  READY",
                // not yet, or still going: wait whatever the failure policy
                "SUCCESS,  -,          WAIT, false, WAIT",
                "SUCCESS,  -,          SKIP, false, WAIT",
                "SUCCESS,  -,          FAIL, false, WAIT",
                "RUNNING,  RETRYING,   FAIL, false, WAIT",
                "SUCCESS,  WAITING_DEPENDENCY, SKIP, false, WAIT",
                "SUCCESS,  BLOCKED,    SKIP, false, WAIT",
                // an upstream failed
                "SUCCESS,  FAILED,     WAIT, false, WAIT",
                "SUCCESS,  FAILED,     SKIP, false, SKIP",
                "SUCCESS,  FAILED,     FAIL, false, FAIL",
                "SUCCESS,  TERMINATED, FAIL, false, FAIL",
                "SUCCESS,  CANCELED,   SKIP, false, SKIP",
                "SUCCESS,  SKIPPED,    SKIP, false, SKIP",
                "RUNNING,  FAILED,     SKIP, false, SKIP",
                // the deadline ends a wait, but a policy verdict on a failure comes first
                "SUCCESS,  FAILED,     WAIT, true,  DEADLINE",
                "SUCCESS,  -,          WAIT, true,  DEADLINE",
                "SUCCESS,  RUNNING,    SKIP, true,  DEADLINE",
                "SUCCESS,  FAILED,     SKIP, true,  SKIP"
            })
    void decides(RunState layer1, RunState layer2, OnUpstreamFailure policy, boolean deadlinePassed, Verdict expected) {
        List<Upstream> ups = new ArrayList<>();
        ups.add(upstream("layer1", layer1));
        ups.add(upstream("layer2", layer2));
        Readiness r = Readiness.decide(ups, policy, deadlinePassed);
        assertThat(r.verdict()).isEqualTo(expected);
        assertThat(r.reason()).isNotBlank();
        if (expected == Verdict.READY) {
            assertThat(r.unmet()).isEmpty();
        } else {
            // the reason names what is missing, so a person reading the run page knows what it waits for
            String missing = layer2 != RunState.SUCCESS ? "layer2" : "layer1";
            assertThat(r.unmet()).extracting(u -> u.dependency().task()).contains(missing);
            assertThat(r.reason()).contains(missing);
        }
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(
            nullValues = "-",
            value = {
                "-,          sync_layer2 (sameDate 2026-10-01): no run yet",
                "RUNNING,    'sync_layer2 (sameDate 2026-10-01): RUNNING, run 7'",
                "FAILED,     'sync_layer2 (sameDate 2026-10-01): ended FAILED, run 7'"
            })
    void describes_the_upstream(RunState state, String expected) {
        Upstream u = new Upstream(
                new Dependency("sync_layer2", Scope.SAME_DATE, null), "2026-10-01", state == null ? null : 7L, state);
        assertThat(u.describe()).isEqualTo(expected);
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(
            delimiter = '|',
            nullValues = "-",
            value = {
                // newest first; the id of the run that decides
                "SUCCESS                     | 1",
                "FAILED                      | 1",
                "-                           | -",
                // a retry (newer) succeeded after a failure
                "SUCCESS, FAILED             | 1",
                // a re-run is going: wait for it, not for the old success
                "RUNNING, SUCCESS            | 1",
                // the newest was skipped because the task was busy with an older run: that run decides
                "SKIPPED, RUNNING            | 2",
                "SKIPPED, RUNNING, FAILED    | 2",
                // a failed re-run does not undo an earlier success
                "FAILED, SUCCESS             | 2",
                // nothing succeeded, nothing going: the newest failure
                "CANCELED, FAILED            | 1"
            })
    void the_decisive_upstream_run(String states, Long expected) {
        List<Readiness.Run> runs = new ArrayList<>();
        if (states != null) {
            String[] s = states.split(",");
            for (int i = 0; i < s.length; i++) {
                runs.add(new Readiness.Run(i + 1, RunState.valueOf(s[i].strip())));
            }
        }
        assertThat(Readiness.decisive(runs).map(Readiness.Run::id)).isEqualTo(Optional.ofNullable(expected));
    }

    @org.junit.jupiter.api.Test
    void no_dependencies_is_ready() {
        assertThat(Readiness.decide(List.of(), OnUpstreamFailure.FAIL, true).verdict())
                .isEqualTo(Verdict.READY);
    }

    private static Upstream upstream(String task, RunState state) {
        return new Upstream(
                new Dependency(task, Scope.SAME_DATE, null), "2026-10-01", state == null ? null : 1L, state);
    }
}
