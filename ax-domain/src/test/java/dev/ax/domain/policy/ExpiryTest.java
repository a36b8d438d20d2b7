package dev.ax.domain.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ax.domain.policy.Expiry.Keep;
import dev.ax.domain.policy.Expiry.Rules;
import dev.ax.domain.run.RunState;
import dev.ax.domain.task.RunRetention;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ExpiryTest {
    static final Instant NOW = Instant.parse("2026-12-04T12:00:00Z");
    static final Duration SERVER = Duration.ofDays(90);

    @Test
    void a_task_without_retention_takes_the_servers_period_for_every_run_and_keeps_its_newest() {
        Rules r = Rules.of(RunRetention.NONE, SERVER);
        assertThat(r).isEqualTo(new Rules(SERVER, SERVER, 1));
        assertThat(r.shortest()).isEqualTo(SERVER);
    }

    @Test
    void failed_runs_default_to_the_tasks_own_period_not_the_servers() {
        Rules r = Rules.of(new RunRetention(Duration.ofDays(7), null, null), SERVER);
        assertThat(r.failedRuns()).isEqualTo(Duration.ofDays(7));
        Rules longer = Rules.of(new RunRetention(Duration.ofDays(30), Duration.ofDays(180), 100), SERVER);
        assertThat(longer).isEqualTo(new Rules(Duration.ofDays(30), Duration.ofDays(180), 100));
        assertThat(longer.shortest()).isEqualTo(Duration.ofDays(30));
    }

    @Test
    void keep_last_zero_still_keeps_the_newest_run() {
        assertThat(Rules.of(new RunRetention(null, null, 0), SERVER).keepLast()).isEqualTo(1);
        assertThatThrownBy(() -> new Rules(SERVER, SERVER, 0)).hasMessageContaining("keepLast");
    }

    /** state, ended (days before now), verdict under runs P30D and failedRuns P180D. */
    @ParameterizedTest(name = "{0} ended {1} days ago: {2}")
    @CsvSource({
        "SUCCESS,    31, EXPIRE",
        "SUCCESS,    29, YOUNG",
        "SUCCESS,    30, EXPIRE",
        "SKIPPED,    31, EXPIRE",
        "CANCELED,   31, EXPIRE",
        "FAILED,     31, YOUNG",
        "TERMINATED, 179, YOUNG",
        "FAILED,     181, EXPIRE",
        "RUNNING,    400, ACTIVE",
        "READY,      400, ACTIVE",
        "RETRYING,   400, ACTIVE",
        "BLOCKED,    400, ACTIVE",
        "WAITING_APPROVAL, 400, ACTIVE",
        "WAITING_DEPENDENCY, 400, ACTIVE",
    })
    void age_decides_only_for_ended_runs_and_failures_stay_longer(RunState state, int daysAgo, String verdict) {
        Rules rules = Rules.of(new RunRetention(Duration.ofDays(30), Duration.ofDays(180), null), SERVER);
        Optional<Keep> keep = Expiry.keep(rules, state, NOW.minus(Duration.ofDays(daysAgo)), Set.of(), NOW);
        assertThat(keep.map(Enum::name).orElse("EXPIRE")).isEqualTo(verdict);
    }

    @ParameterizedTest
    @CsvSource({"NEWEST", "IDEMPOTENCY_KEY", "TRIGGER_KEY", "DEPENDENCY", "WORKFLOW", "FOLLOW_UP"})
    void every_reason_to_keep_wins_over_age(Keep reason) {
        Rules rules = Rules.of(new RunRetention(Duration.ofSeconds(10), null, null), SERVER);
        Instant longAgo = NOW.minus(Duration.ofDays(1000));
        assertThat(Expiry.keep(rules, RunState.SUCCESS, longAgo, Set.of(reason), NOW))
                .contains(reason);
        assertThat(Expiry.keep(rules, RunState.SUCCESS, longAgo, Set.of(), NOW)).isEmpty();
    }

    @Test
    void a_run_whose_end_is_unknown_stays() {
        Rules rules = Rules.of(new RunRetention(Duration.ofSeconds(10), null, null), SERVER);
        assertThat(Expiry.keep(rules, RunState.SUCCESS, null, Set.of(), NOW)).contains(Keep.YOUNG);
    }
}
