package dev.ax.store.read;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.domain.run.Cause;
import dev.ax.domain.run.RunState;
import dev.ax.domain.task.TaskDefinition;
import dev.ax.domain.task.TaskDefinitionCodec;
import dev.ax.store.DbConfig;
import dev.ax.store.Dialect;
import dev.ax.store.NewRun;
import dev.ax.store.Store;
import dev.ax.store.TaskRow;
import dev.ax.store.Tx;
import dev.ax.store.read.ConsoleReads.HourRow;
import dev.ax.store.read.ConsoleReads.RunListFilter;
import dev.ax.store.read.ConsoleReads.RunListRow;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.assertj.core.data.Offset;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The console's own read queries give the same answers on H2 and on PostgreSQL (whose session runs in a non-UTC zone). */
abstract class ConsoleReadsContractTest {
    Store store;
    TaskRow a;
    TaskRow b;
    Instant now;

    abstract DbConfig config();

    @BeforeEach
    void open() {
        store = Store.open(config());
        a = task("alpha");
        b = task("beta");
        now = store.tx(Tx::now);
    }

    @AfterEach
    void close() {
        store.close();
    }

    @Test
    void finds_the_first_run_of_the_window_by_bisecting_ids() {
        long old1 = run(a, Cause.CRON, RunState.SUCCESS, Duration.ofHours(48));
        long old2 = run(a, Cause.CRON, RunState.FAILED, Duration.ofHours(30));
        long in1 = run(a, Cause.CRON, RunState.SUCCESS, Duration.ofHours(20));
        run(b, Cause.MANUAL, RunState.FAILED, Duration.ofHours(2));
        run(b, Cause.MANUAL, RunState.RUNNING, Duration.ofMinutes(1));

        long from = store.tx(tx -> ConsoleReads.firstIdSince(tx, now.minus(Duration.ofHours(24))));
        assertThat(from).isEqualTo(in1).isGreaterThan(old2).isGreaterThan(old1);
        List<HourRow> window = store.tx(tx -> ConsoleReads.hourly(tx, from));
        assertThat(window.stream().mapToLong(HourRow::runs).sum()).isEqualTo(3);
        assertThat(window)
                .extracting(HourRow::state)
                .containsExactlyInAnyOrder(RunState.SUCCESS, RunState.FAILED, RunState.RUNNING);
        long none = store.tx(tx -> ConsoleReads.firstIdSince(tx, now.plus(Duration.ofHours(1))));
        List<HourRow> empty = store.tx(tx -> ConsoleReads.hourly(tx, none));
        assertThat(empty).isEmpty();
    }

    @Test
    void an_empty_database_has_an_empty_window() {
        long from = store.tx(tx -> ConsoleReads.firstIdSince(tx, now.minus(Duration.ofHours(24))));
        List<HourRow> hours = store.tx(tx -> ConsoleReads.hourly(tx, from));
        assertThat(hours).isEmpty();
    }

    @Test
    void counts_runs_by_utc_hour_and_state_with_the_worst_fire_lag() {
        long first = run(a, Cause.CRON, RunState.SUCCESS, Duration.ofHours(3), Duration.ofSeconds(90));
        run(a, Cause.CRON, RunState.SUCCESS, Duration.ofHours(3), Duration.ofSeconds(2));
        run(a, Cause.CRON, RunState.FAILED, Duration.ofHours(3), Duration.ofSeconds(5));
        run(b, Cause.MANUAL, RunState.SUCCESS, Duration.ofHours(3), Duration.ofSeconds(500));
        run(b, Cause.MANUAL, RunState.SUCCESS, Duration.ZERO);
        List<HourRow> hours = store.tx(tx -> ConsoleReads.hourly(tx, first));
        long threeAgo = Math.floorDiv(now.minus(Duration.ofHours(3)).getEpochSecond(), 3600);
        long current = Math.floorDiv(now.getEpochSecond(), 3600);
        assertThat(hours).hasSize(3);
        HourRow ok = hours.stream()
                .filter(h -> h.hour() == threeAgo && h.state() == RunState.SUCCESS)
                .findFirst()
                .orElseThrow();
        HourRow failed = hours.stream()
                .filter(h -> h.hour() == threeAgo && h.state() == RunState.FAILED)
                .findFirst()
                .orElseThrow();
        assertThat(ok.runs()).isEqualTo(3);
        // Manual runs have no slot to be late for: the worst lag is the cron run's 90 s, not the manual run's 500 s.
        assertThat(ok.maxLagSeconds()).isCloseTo(90.0, Offset.offset(0.01));
        assertThat(failed.runs()).isEqualTo(1);
        assertThat(failed.maxLagSeconds()).isCloseTo(5.0, Offset.offset(0.01));
        HourRow latest = hours.getLast();
        assertThat(latest.hour()).isEqualTo(current);
        assertThat(latest.maxLagSeconds()).isNull();
    }

    @Test
    void recent_hours_kept_up_to_date_answer_as_a_fresh_count_does() {
        run(a, Cause.CRON, RunState.SUCCESS, Duration.ofHours(30)); // before the window
        run(a, Cause.CRON, RunState.SUCCESS, Duration.ofHours(5), Duration.ofSeconds(3));
        long running = run(a, Cause.CRON, RunState.RUNNING, Duration.ofHours(5), Duration.ofSeconds(40));
        long waiting = run(b, Cause.MANUAL, RunState.WAITING_APPROVAL, Duration.ofHours(2));
        long deleted = run(b, Cause.CRON, RunState.RETRYING, Duration.ofHours(2));
        run(b, Cause.CRON, RunState.FAILED, Duration.ofHours(2));
        RecentHours recent = new RecentHours();
        assertThat(recentHours(recent)).isEqualTo(freshCount()).isNotEmpty();

        // Runs end or move on, retention deletes one that had not ended, new ones settle, one is made now: the same
        // answer as counting again, without counting again.
        store.tx(tx -> tx.update("UPDATE ax_instance SET state = 'FAILED' WHERE id = ?", running)
                + tx.update("UPDATE ax_instance SET state = 'READY' WHERE id = ?", waiting)
                + tx.update("DELETE FROM ax_instance WHERE id = ?", deleted));
        run(a, Cause.CRON, RunState.SUCCESS, Duration.ofMinutes(3), Duration.ofSeconds(7));
        run(a, Cause.CRON, RunState.RUNNING, Duration.ofMinutes(2));
        run(b, Cause.MANUAL, RunState.SUCCESS, Duration.ZERO);
        assertThat(recentHours(recent)).isEqualTo(freshCount());
        assertThat(recent.recounts()).isEqualTo(1);
        assertThat(recentHours(recent).stream()
                        .filter(h -> h.state() == RunState.FAILED)
                        .mapToLong(HourRow::runs)
                        .sum())
                .isEqualTo(2);
    }

    List<HourRow> recentHours(RecentHours recent) {
        Instant since = now.minus(Duration.ofHours(24));
        return store.tx(tx -> recent.read(tx, since, ConsoleReads.firstIdSince(tx, since)));
    }

    List<HourRow> freshCount() {
        return RecentHours.merge(store.tx(
                tx -> ConsoleReads.hourly(tx, ConsoleReads.firstIdSince(tx, now.minus(Duration.ofHours(24))))));
    }

    @Test
    void lists_the_newest_runs_in_a_state_and_the_failures_nobody_handled() {
        long handled = run(a, Cause.CRON, RunState.FAILED, Duration.ofHours(2));
        long open = run(a, Cause.CRON, RunState.FAILED, Duration.ofHours(1));
        long retry = run(a, Cause.RETRY, RunState.SUCCESS, Duration.ZERO);
        store.tx(tx -> tx.update("UPDATE ax_instance SET parent_id = ? WHERE id = ?", handled, retry));
        List<RunListRow> failed = store.tx(tx -> ConsoleReads.failedUnhandled(tx, 0, 10));
        assertThat(failed).extracting(RunListRow::id).containsExactly(open);
        List<RunListRow> inState = store.tx(tx -> ConsoleReads.inState(tx, RunState.FAILED, 1));
        assertThat(inState).extracting(RunListRow::id).containsExactly(open);
    }

    @Test
    void filters_and_pages_runs_newest_first() {
        long a1 = run(a, Cause.CRON, RunState.SUCCESS, Duration.ZERO);
        long a2 = run(a, Cause.MANUAL, RunState.FAILED, Duration.ZERO);
        long a3 = run(a, Cause.CRON, RunState.FAILED, Duration.ZERO);
        run(b, Cause.CRON, RunState.FAILED, Duration.ZERO);
        List<RunListRow> page1 = store.tx(
                tx -> ConsoleReads.runs(tx, new RunListFilter(List.of(a.id()), null, null, 0), Long.MAX_VALUE, 2));
        assertThat(page1).extracting(RunListRow::id).containsExactly(a3, a2);
        List<RunListRow> page2 =
                store.tx(tx -> ConsoleReads.runs(tx, new RunListFilter(List.of(a.id()), null, null, 0), a2, 2));
        assertThat(page2).extracting(RunListRow::id).containsExactly(a1);
        List<RunListRow> failedCron = store.tx(tx -> ConsoleReads.runs(
                tx,
                new RunListFilter(ConsoleReads.taskIdsNamed(tx, "alpha"), RunState.FAILED, Cause.CRON, 0),
                Long.MAX_VALUE,
                10));
        assertThat(failedCron).extracting(RunListRow::id).containsExactly(a3);
    }

    @Test
    void filters_runs_by_creation_time_through_the_first_id_since() {
        run(a, Cause.CRON, RunState.SUCCESS, Duration.ofHours(30));
        long recent = run(a, Cause.CRON, RunState.SUCCESS, Duration.ofHours(3));
        long newest = run(b, Cause.CRON, RunState.SUCCESS, Duration.ZERO);
        List<RunListRow> lastDay = store.tx(tx -> ConsoleReads.runs(
                tx,
                new RunListFilter(
                        null, null, null, ConsoleReads.firstIdSince(tx, tx.now().minus(Duration.ofHours(24)))),
                Long.MAX_VALUE,
                10));
        assertThat(lastDay).extracting(RunListRow::id).containsExactly(newest, recent);
        List<RunListRow> unknownName = store.tx(tx -> ConsoleReads.runs(
                tx, new RunListFilter(ConsoleReads.taskIdsNamed(tx, "nobody"), null, null, 0), Long.MAX_VALUE, 10));
        assertThat(unknownName).isEmpty();
    }

    @Test
    void the_last_state_of_each_task_ignores_approval_previews() {
        run(a, Cause.CRON, RunState.FAILED, Duration.ZERO);
        run(a, Cause.PREVIEW, RunState.SUCCESS, Duration.ZERO);
        run(b, Cause.CRON, RunState.SUCCESS, Duration.ZERO);
        TaskRow idle = task("gamma");
        Map<Long, RunState> last = store.tx(tx -> ConsoleReads.lastStates(tx, List.of(a.id(), b.id(), idle.id())));
        assertThat(last).containsExactlyInAnyOrderEntriesOf(Map.of(a.id(), RunState.FAILED, b.id(), RunState.SUCCESS));
    }

    @Test
    void the_history_counts_its_rows_and_names_its_oldest_run_and_event() {
        HealthReads.History empty = store.tx(HealthReads::history);
        assertThat(empty.oldestRunAt()).isNull();
        long old = run(a, Cause.CRON, RunState.SUCCESS, Duration.ofDays(3));
        run(a, Cause.CRON, RunState.SUCCESS, Duration.ofHours(2));
        run(b, Cause.MANUAL, RunState.FAILED, Duration.ofMinutes(5));
        if (store.db().dialect() == Dialect.POSTGRES) {
            // PostgreSQL's figures are the planner's, which ANALYZE (or autovacuum) keeps.
            store.tx(tx -> tx.update("ANALYZE ax_instance") + tx.update("ANALYZE ax_event"));
        }
        HealthReads.History h = store.tx(HealthReads::history);
        long events = store.tx(tx -> tx.queryOne("SELECT COUNT(*) AS n FROM ax_event", r -> r.lng("n"))
                .orElseThrow());
        assertThat(h.runs()).isEqualTo(3);
        assertThat(h.events()).isEqualTo(events).isPositive();
        assertThat(h.oldestRunAt())
                .isEqualTo(
                        store.tx(tx -> store.runs().find(tx, old)).orElseThrow().createdAt());
        assertThat(h.oldestEventAt()).isNotNull();
    }

    TaskRow task(String name) {
        TaskDefinition def = TaskDefinitionCodec.parse(
                        Map.of(
                                "taskName",
                                name,
                                "trigger",
                                Map.of("type", "event"),
                                "action",
                                Map.of("type", "shell", "command", "true")),
                        Set.of())
                .definition();
        return store.tx(tx -> store.tasks().insert(tx, def, null, "test"));
    }

    long run(TaskRow t, Cause cause, RunState state, Duration age) {
        return run(t, cause, state, age, Duration.ZERO);
    }

    /** A run created {@code age} ago, {@code lag} after its slot, now in {@code state} (set directly: these tests only read). */
    long run(TaskRow t, Cause cause, RunState state, Duration age, Duration lag) {
        Instant created = now.minus(age);
        return store.tx(tx -> {
            long id = store.runs()
                    .create(
                            tx,
                            new NewRun(
                                    t.id(),
                                    t.name(),
                                    1,
                                    cause,
                                    cause.wireName() + ":" + UUID.randomUUID(),
                                    created.minus(lag),
                                    Map.of(),
                                    RunState.READY,
                                    1,
                                    "default",
                                    "test",
                                    "n1",
                                    null,
                                    null,
                                    null))
                    .orElseThrow();
            tx.update("UPDATE ax_instance SET state = ?, created_at = ? WHERE id = ?", state, created, id);
            return id;
        });
    }
}
