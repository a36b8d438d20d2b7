package dev.ax.domain.policy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.domain.run.FailureKind;
import dev.ax.domain.task.MisfirePolicy;
import dev.ax.domain.task.Policy;
import dev.ax.domain.task.RetryBackoff;
import dev.ax.domain.task.RetryRules;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class RetryDecisionTest {
    static Policy policy(int maxRetries, RetryRules rules) {
        return new Policy(maxRetries, 300, null, MisfirePolicy.FIRE_ONCE, 1, rules, List.of(), null);
    }

    @ParameterizedTest(name = "attempt {0} of maxRetries {1}, {2} exit {3} -> retry {4}")
    @CsvSource({
        "1, 2, EXIT_CODE, 1, true",
        "2, 2, EXIT_CODE, 1, true",
        "3, 2, EXIT_CODE, 1, false",
        "1, 0, EXIT_CODE, 1, false",
        "1, 2, TIMEOUT, , true",
        "1, 2, EXECUTOR_LOST, , true",
        "1, 2, START_ERROR, , false"
    })
    void default_rules_retry_every_failure_until_attempts_run_out(
            int attempt, int maxRetries, FailureKind kind, Integer exit, boolean retry) {
        RetryDecision d = RetryDecision.decide(policy(maxRetries, RetryRules.ALL), attempt, kind, exit);
        assertThat(d.retry()).isEqualTo(retry);
        assertThat(d.delay()).isEqualTo(retry ? Duration.ofSeconds(300) : Duration.ZERO);
        assertThat(d.reason()).isNotBlank();
    }

    @ParameterizedTest(name = "exit {0} with retryable exit codes [75] -> retry {1}")
    @CsvSource({"75, true", "1, false", "2, false"})
    void exit_code_rules_retry_only_the_listed_codes(int exit, boolean retry) {
        RetryRules rules = new RetryRules(true, Set.of(75), true, true);
        assertThat(RetryDecision.decide(policy(3, rules), 1, FailureKind.EXIT_CODE, exit)
                        .retry())
                .isEqualTo(retry);
    }

    @ParameterizedTest(name = "exponential from 10s capped at 60s: after attempt {0} wait {1}s")
    @CsvSource({"1, 10", "2, 20", "3, 40", "4, 60", "10, 60", "200, 60"})
    void exponential_backoff_doubles_up_to_the_cap(int attempt, long seconds) {
        var backoff = new RetryBackoff(true, 60L, 0);
        assertThat(RetryDecision.delay(10, backoff, attempt, 0.5)).isEqualTo(Duration.ofSeconds(seconds));
    }

    @ParameterizedTest(name = "jitter 0.2 with draw {0} -> {1} ms")
    @CsvSource({"0.0, 80000", "0.5, 100000", "0.999, 119960"})
    void jitter_spreads_the_wait_by_the_fraction_either_way(double draw, long millis) {
        var backoff = new RetryBackoff(false, null, 0.2);
        assertThat(RetryDecision.delay(100, backoff, 3, draw)).isEqualTo(Duration.ofMillis(millis));
    }

    @ParameterizedTest
    @CsvSource({"EXIT_CODE", "TIMEOUT", "EXECUTOR_LOST"})
    void retryable_false_never_retries(FailureKind kind) {
        assertThat(RetryDecision.decide(policy(5, RetryRules.NONE), 1, kind, 1).retry())
                .isFalse();
    }
}
