package dev.ax.alerts;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.alerts.WatchChecks.Check;
import dev.ax.store.read.HealthReads;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

class WatchChecksTest {
    static final Instant NOW = Instant.parse("2026-03-01T12:00:00Z");
    static final AlertsConfig.Watch W = AlertsConfig.Watch.DEFAULT;

    @Test
    void a_quiet_healthy_node_fails_nothing() {
        assertThat(WatchChecks.failing(facts(b -> {}), W)).isEmpty();
    }

    @Test
    void a_loop_that_stopped_ticking_fails_scheduler_loop() {
        var f = WatchChecks.failing(facts(b -> b.loopAge = Duration.ofSeconds(90)), W);
        assertThat(f).containsOnlyKeys(Check.SCHEDULER_LOOP);
        assertThat(f.get(Check.SCHEDULER_LOOP).toString()).contains("90s");
        assertThat(f.get(Check.SCHEDULER_LOOP).in(AlertWords.of(AlertWords.ZH_CN)))
                .isEqualTo("调度循环已经 90 秒没有完成一轮");
    }

    @Test
    void silence_needs_both_an_overdue_task_and_no_scheduled_run_lately() {
        assertThat(WatchChecks.failing(facts(b -> b.overdue = 2), W)).containsOnlyKeys(Check.SILENCE);
        assertThat(WatchChecks.failing(
                        facts(b -> {
                            b.overdue = 2;
                            b.lastScheduled = NOW.minusSeconds(10);
                        }),
                        W))
                .isEmpty();
        assertThat(WatchChecks.failing(facts(b -> b.lastScheduled = NOW.minusSeconds(3600)), W))
                .isEmpty();
    }

    @Test
    void old_ready_runs_fail_the_backlog_and_starved_groups_fail_executors() {
        var f = WatchChecks.failing(
                facts(b -> {
                    b.oldestReady = NOW.minus(Duration.ofMinutes(6));
                    b.starved = List.of("gpu");
                }),
                W);
        assertThat(f).containsOnlyKeys(Check.READY_BACKLOG, Check.EXECUTORS);
        assertThat(f.get(Check.EXECUTORS).toString()).contains("gpu");
    }

    @Test
    void a_clock_off_the_databases_by_more_than_the_limit_degrades_the_node_either_way() {
        var ahead = WatchChecks.failing(facts(b -> b.clockOffset = Duration.ofSeconds(-30)), W);
        assertThat(ahead).containsOnlyKeys(Check.CLOCK);
        assertThat(ahead.get(Check.CLOCK).toString()).contains("30s ahead of the database's");
        assertThat(ahead.get(Check.CLOCK).in(AlertWords.of(AlertWords.ZH_CN))).startsWith("本节点的时钟比数据库快 30 秒");
        assertThat(WatchChecks.failing(facts(b -> b.clockOffset = Duration.ofSeconds(30)), W)
                        .get(Check.CLOCK)
                        .toString())
                .contains("30s behind");
        assertThat(WatchChecks.failing(facts(b -> b.clockOffset = Duration.ofSeconds(4)), W))
                .isEmpty();
        assertThat(WatchChecks.failing(facts(b -> b.clockOffset = null), W)).isEmpty();
        assertThat(Check.CLOCK.degradesOnly).isTrue();
        assertThat(Check.CLOCK.key("n1")).isEqualTo("clock@n1");
    }

    @Test
    void node_local_checks_are_kept_per_node() {
        assertThat(Check.SCHEDULER_LOOP.key("n1")).isEqualTo("scheduler-loop@n1");
        assertThat(Check.SILENCE.key("n1")).isEqualTo("silence");
    }

    static final class B {
        Duration loopAge = Duration.ofMillis(200);
        int overdue;
        Instant lastScheduled = NOW.minusSeconds(400);
        Instant oldestReady;
        List<String> starved = List.of();
        Duration clockOffset = Duration.ofMillis(3);
    }

    static WatchFacts facts(Consumer<B> change) {
        B b = new B();
        change.accept(b);
        return new WatchFacts(
                NOW,
                7L,
                NOW,
                Map.of("ready", b.oldestReady == null ? 0L : 3L),
                b.oldestReady,
                1,
                b.starved,
                b.lastScheduled,
                b.overdue,
                b.overdue > 0 ? NOW.minusSeconds(600) : null,
                b.loopAge,
                b.clockOffset,
                new HealthReads.History(10, 40, 20, NOW.minusSeconds(3600), NOW.minusSeconds(3600)));
    }
}
