package dev.ax.scheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ax.domain.run.BackfillState;
import dev.ax.domain.run.Cause;
import dev.ax.domain.run.RunState;
import dev.ax.store.DbConfig;
import dev.ax.store.RunRow;
import dev.ax.store.RunStore.RunFilter;
import dev.ax.store.Store;
import java.time.Duration;
import java.time.LocalDate;
import java.time.ZoneId;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** A 31-day backfill, parallelism 2, exactly 31 runs with the right dates, repeatable. */
abstract class BackfillClusterTest {
    /** A fresh database the nodes share. */
    abstract DbConfig config();

    Store store;
    SchedulerNode node;

    @BeforeEach
    void open() {
        store = Store.open(config());
        node = TestNodes.node(store, "n1");
    }

    @AfterEach
    void close() {
        node.close();
        store.close();
    }

    List<RunRow> runs() {
        return store
                .tx(tx -> store.runs().list(tx, new RunFilter("daily_report", null, null, null), Long.MAX_VALUE, 1000))
                .stream()
                .sorted(Comparator.comparing(RunRow::scheduledAt))
                .toList();
    }

    @Test
    void a_31_day_backfill_runs_each_date_once_two_at_a_time_and_repeating_it_creates_nothing() throws Exception {
        node.tasks()
                .create(
                        Map.of(
                                "taskName",
                                "daily_report",
                                "trigger",
                                Map.of("type", "cron", "expression", "0 2 * * *", "timezone", "Asia/Shanghai"),
                                "action",
                                Map.of("type", "shell", "command", "echo report for {{date}}"),
                                "policy",
                                Map.of("overflow", "ALLOW")),
                        "test");
        var started = node.backfills()
                .start("daily_report", Map.of("from", "2026-10-01", "to", "2026-10-31", "parallelism", 2), "ops");
        assertThat(started.slots()).isEqualTo(31);
        node.start();
        try (var executor = new ConcurrencyClusterTest.SlowExecutor(node.dispatcher(), "e1", 150)) {
            await().atMost(Duration.ofSeconds(60))
                    .until(() -> node.backfills()
                                    .progress(started.backfillId())
                                    .backfill()
                                    .state()
                            == BackfillState.DONE);
        }
        List<RunRow> runs = runs();
        assertThat(runs).hasSize(31).allSatisfy(r -> {
            assertThat(r.state()).isEqualTo(RunState.SUCCESS);
            assertThat(r.cause()).isEqualTo(Cause.BACKFILL);
        });
        ZoneId shanghai = ZoneId.of("Asia/Shanghai");
        assertThat(runs.stream()
                        .map(r -> LocalDate.ofInstant(r.scheduledAt(), shanghai))
                        .toList())
                .isEqualTo(LocalDate.parse("2026-10-01")
                        .datesUntil(LocalDate.parse("2026-11-01"))
                        .toList());
        // never more than 2 at once: at each start, count the runs that had started and not yet finished
        for (RunRow r : runs) {
            long overlapping = runs.stream()
                    .filter(o -> !o.startedAt().isAfter(r.startedAt())
                            && o.finishedAt().isAfter(r.startedAt()))
                    .count();
            assertThat(overlapping).isLessThanOrEqualTo(2);
        }

        var again = node.backfills()
                .start("daily_report", Map.of("from", "2026-10-01", "to", "2026-10-31", "parallelism", 2), "ops");
        assertThat(again.plan()).allSatisfy(p -> assertThat(p.action()).isEqualTo("skip"));
        node.housekeeping().backfills();
        await().atMost(Duration.ofSeconds(10))
                .until(() ->
                        node.backfills().progress(again.backfillId()).backfill().state() == BackfillState.DONE);
        assertThat(runs()).hasSize(31);
    }

    @Test
    void a_dry_run_lists_the_slots_and_creates_nothing() {
        node.tasks()
                .create(
                        Map.of(
                                "taskName",
                                "daily_report",
                                "trigger",
                                Map.of("type", "cron", "expression", "0 2 * * *", "timezone", "Asia/Shanghai"),
                                "action",
                                Map.of("type", "shell", "command", "true")),
                        "test");
        var plan = node.backfills()
                .start("daily_report", Map.of("from", "2026-10-01", "to", "2026-10-03", "dryRun", true), "ops");
        assertThat(plan.backfillId()).isNull();
        assertThat(plan.plan())
                .extracting(p -> p.slot().toString())
                .containsExactly("2026-09-30T18:00:00Z", "2026-10-01T18:00:00Z", "2026-10-02T18:00:00Z");
        assertThat(runs()).isEmpty();
    }
}
