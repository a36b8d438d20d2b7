package dev.ax.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ax.domain.run.Cause;
import dev.ax.domain.run.EventType;
import dev.ax.domain.run.RunState;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class PostgresStoreTest extends ClusterStoreContractTest {
    @Override
    DbConfig config() {
        return TestDatabases.postgres();
    }

    @Override
    void waitForLocksAtMostFiveSeconds(Tx tx) {
        tx.update("SET LOCAL lock_timeout = '5s'");
    }

    /**
     * A table that changed by more rows than its statistics know of (and by at least MIN_CHANGES) is analyzed, so
     * that plans cached on a new database stop treating it as a ten-page table; then again once it doubled, until its
     * statistics know of SMALL rows: from there on autovacuum keeps them. The probe tables keep autovacuum out of the
     * way (it would otherwise analyze them at its own time).
     */
    @Test
    void a_small_table_that_outgrew_its_planner_statistics_is_analyzed_and_again_when_it_doubled() {
        store.tx(tx -> {
            for (String table : List.of("ax_stats_grown", "ax_stats_small")) {
                tx.update("DROP TABLE IF EXISTS " + table);
                tx.update("CREATE TABLE " + table + " (id BIGINT) WITH (autovacuum_enabled = false)");
            }
            tx.update("INSERT INTO ax_stats_grown SELECT g FROM generate_series(1, 1500) g");
            return tx.update("INSERT INTO ax_stats_small SELECT g FROM generate_series(1, 999) g");
        });
        assertThat(rowsInStatistics("ax_stats_grown")).isEqualTo(-1); // never analyzed

        // The server's activity counters are published a moment after the commit; both tables' in the same message.
        assertThat(analyzedOnceCountersArrive("ax_stats_grown")).doesNotContain("ax_stats_small");
        assertThat(rowsInStatistics("ax_stats_grown")).isEqualTo(1500);
        assertThat(rowsInStatistics("ax_stats_small")).isEqualTo(-1);
        assertThat(store.statistics().refresh())
                .doesNotContain("ax_stats_grown"); // its statistics are as large as it is

        insert("ax_stats_grown", 1600);
        analyzedOnceCountersArrive("ax_stats_grown");
        assertThat(rowsInStatistics("ax_stats_grown")).isEqualTo(3100);
        insert("ax_stats_grown", 8000);
        analyzedOnceCountersArrive("ax_stats_grown");
        assertThat(rowsInStatistics("ax_stats_grown"))
                .isEqualTo(11_100)
                .isGreaterThanOrEqualTo(PlannerStatistics.SMALL);

        // Large now: left to autovacuum however much it grows. The small table's counters arrive with its.
        store.tx(tx -> {
            tx.update("INSERT INTO ax_stats_grown SELECT g FROM generate_series(1, 12000) g");
            return tx.update("INSERT INTO ax_stats_small SELECT g FROM generate_series(1, 1001) g");
        });
        assertThat(analyzedOnceCountersArrive("ax_stats_small")).doesNotContain("ax_stats_grown");
        assertThat(rowsInStatistics("ax_stats_grown")).isEqualTo(11_100);
    }

    /**
     * The lease reaper looks for RUNNING runs at every housekeeping tick, through an index that keeps an entry for
     * every run that was RUNNING since the last vacuum. With statistics taken while runs were running, PostgreSQL
     * read those entries with a bitmap scan (or, on a table this small, read the whole table), which checks each
     * finished run in the table again on every tick (130 ms at 150,000 of them). The reaper's transaction reads by
     * plain index scans: the first visit marks the finished runs' entries dead, and the next reap steps over them
     * without touching the table.
     */
    @Test
    void the_lease_reaper_steps_over_the_runs_that_finished_since_the_last_vacuum() {
        long template = newInstance("template");
        store.tx(tx -> tx.update(
                "INSERT INTO ax_instance (task_id, task_name, task_version, cause, fire_key, scheduled_at, params,"
                        + " state, attempt, max_attempts, executor_group, ready_at, executor_id, lease_expires_at, actor, node_id, created_at,"
                        + " updated_at, started_at) SELECT task_id, task_name, task_version, cause, 'finished-' || g, scheduled_at, params,"
                        + " 'RUNNING', 1, max_attempts, executor_group, ready_at, 'e1', CURRENT_TIMESTAMP + INTERVAL '1 hour', actor, node_id,"
                        + " created_at, updated_at, CURRENT_TIMESTAMP FROM ax_instance, generate_series(1, 3000) g WHERE id = ?",
                template));
        store.tx(tx -> tx.update("ANALYZE ax_instance"));
        store.tx(tx -> tx.update("UPDATE ax_instance SET state = 'SUCCESS', finished_at = CURRENT_TIMESTAMP"
                + " WHERE fire_key LIKE 'finished-%'"));

        String asPlanned = store.tx(tx -> plan(tx, "EXPLAIN"));
        assertThat(asPlanned)
                .as("left to itself, the planner reads every finished run's row")
                .containsAnyOf("Bitmap Heap Scan", "Seq Scan");

        store.tx(tx -> {
            tx.preferPlainIndexScans();
            String first = plan(tx, "EXPLAIN (ANALYZE, BUFFERS)");
            assertThat(first).contains("Index Scan").doesNotContain("Bitmap").doesNotContain("Seq Scan");
            // A scan marks an entry dead only once no transaction on the server (in any database: the other test
            // JVM's too) may still see its run RUNNING; the scans after that step over the entries.
            await().pollInSameThread()
                    .atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(100))
                    .untilAsserted(() -> {
                        String later = plan(tx, "EXPLAIN (ANALYZE, BUFFERS)");
                        assertThat(buffers(later)).as(later).isLessThan(buffers(first) / 5);
                    });
            return null;
        });
        store.tx(tx -> {
            assertThat(store.leases().expiredLeases(tx, 100)).isEmpty();
            assertThat(tx.queryOne("SELECT current_setting('enable_bitmapscan') AS s", r -> r.str("s"))
                            .orElseThrow())
                    .isEqualTo("off");
            return null;
        });
        String afterwards =
                store.tx(tx -> tx.queryOne("SELECT current_setting('enable_bitmapscan') AS s", r -> r.str("s"))
                        .orElseThrow());
        assertThat(afterwards).as("only for the reaper's own transaction").isEqualTo("on");
    }

    /**
     * The firing loop asks when to wake up each time it finds nothing due. With thousands of tasks of one kind
     * (fire at their slot, or fire ahead) and none of the other, asking for the earliest of each kind walked the
     * whole due index for the missing kind at every wake-up. Now it reads the earliest task and, at most, the
     * tasks due within the lead after it.
     */
    @Test
    void the_firing_loop_wake_up_reads_a_handful_of_tasks_whatever_their_number() {
        Instant t = Instant.parse("2026-11-29T02:00:00Z");
        store.tx(tx -> tx.update(
                "INSERT INTO ax_task (name, version, definition, trigger_type, executor_group, enabled, next_fire_at,"
                        + " created_at, created_by, updated_at, updated_by, canary, fires_ahead) SELECT 'many-' || g, version, definition,"
                        + " trigger_type, executor_group, TRUE, CAST(? AS TIMESTAMPTZ) + g * INTERVAL '1 second', created_at, created_by,"
                        + " updated_at, updated_by, canary, FALSE FROM ax_task, generate_series(1, 5000) g WHERE id = ?",
                t,
                task.id()));
        store.tx(tx -> tx.update("ANALYZE ax_task"));
        for (boolean firesAhead : List.of(false, true)) {
            store.tx(tx -> tx.update("UPDATE ax_task SET fires_ahead = ? WHERE name LIKE 'many-%'", firesAhead));
            store.tx(tx -> {
                long[] before = taskReads(tx);
                Instant wake = store.tasks().earliestNextFire(tx, 500).orElseThrow();
                long[] after = taskReads(tx);
                assertThat(wake).isEqualTo(firesAhead ? t.plusMillis(500) : t.plusSeconds(1));
                assertThat(after[0] - before[0])
                        .as("sequential scans of ax_task")
                        .isZero();
                assertThat(after[1] - before[1]).as("tasks read by index").isLessThanOrEqualTo(3);
                return null;
            });
        }
    }

    /**
     * A task's timeline is read from the index of its events that leaves out the routine transitions of its
     * runs (V32): a page of it reads a page of rows, however many runs the task had.
     */
    @Test
    void a_task_timeline_reads_its_page_past_any_number_of_routine_run_events() {
        long run = store.tx(tx -> store.runs()
                        .create(
                                tx,
                                new NewRun(
                                        task.id(),
                                        "t",
                                        1,
                                        Cause.EVENT,
                                        "k",
                                        Instant.parse("2026-11-29T02:00:00Z"),
                                        Map.of(),
                                        RunState.READY,
                                        1,
                                        "default",
                                        "test",
                                        "n1",
                                        null,
                                        null,
                                        null)))
                .orElseThrow();
        for (int i = 0; i < 3; i++) {
            store.tx(tx -> {
                store.events()
                        .append(tx, new NewEvent(task.id(), "t", EventType.TASK_PAUSED, "olga", "n1", null, Map.of()));
                return null;
            });
        }
        store.tx(tx -> tx.update(
                "INSERT INTO ax_event (instance_id, task_id, task_name, type, actor, node_id, at)"
                        + " SELECT ?, ?, 't', CASE g % 3 WHEN 0 THEN 'CREATED' WHEN 1 THEN 'CLAIMED' ELSE 'SUCCEEDED' END, 'scheduler', 'n1',"
                        + " CURRENT_TIMESTAMP FROM generate_series(1, 30000) g",
                run, task.id()));
        store.tx(tx -> tx.update("ANALYZE ax_event"));
        store.tx(tx -> {
            long before = eventsFetched(tx);
            List<EventRow> page = store.events().forTask(tx, task.id(), Long.MAX_VALUE, 3);
            assertThat(page)
                    .extracting(EventRow::type)
                    .containsOnly(EventType.TASK_PAUSED)
                    .hasSize(3);
            assertThat(eventsFetched(tx) - before).as("event rows read").isLessThanOrEqualTo(10);
            return null;
        });
    }

    /**
     * A task's scheduled runs are found by slot through their fire keys (SlotKeys), the index by slot holding only
     * the other runs (V33): the dependency looks read a handful of rows of a task with 30,000 scheduled runs.
     */
    @Test
    void the_dependency_looks_by_slot_read_a_few_rows_of_a_task_with_many_scheduled_runs() {
        Instant first = Instant.parse("2026-11-01T00:00:00Z");
        insertRuns("'CRON'", "to_char(s AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')", "'SUCCESS'", first);
        store.tx(tx -> tx.update("ANALYZE ax_instance"));
        Instant tenThousandth = first.plus(Duration.ofMinutes(10_000));
        store.tx(tx -> {
            long before = instancesRead(tx);
            List<DependencyStore.Found> previous = store.dependencies().previousSlot(tx, task.id(), tenThousandth);
            long afterPrevious = instancesRead(tx);
            List<DependencyStore.Found> since =
                    store.dependencies().since(tx, task.id(), tenThousandth.minus(Duration.ofMinutes(30)));
            long afterSince = instancesRead(tx);
            List<DependencyStore.Found> undated = store.dependencies()
                    .undatedBetween(tx, task.id(), tenThousandth, tenThousandth.plus(Duration.ofMinutes(10)));
            long afterUndated = instancesRead(tx);
            assertThat(previous)
                    .singleElement()
                    .satisfies(f -> assertThat(f.state()).isEqualTo(RunState.SUCCESS));
            assertThat(tx.queryOne(
                            "SELECT scheduled_at FROM ax_instance WHERE id = ?",
                            r -> r.instant("scheduled_at"),
                            previous.getFirst().instanceId()))
                    .as("the slot just before")
                    .contains(tenThousandth.minus(Duration.ofMinutes(1)));
            assertThat(since).hasSize(DependencyStore.CANDIDATES);
            assertThat(undated).hasSize(10);
            assertThat(afterPrevious - before)
                    .as("rows read for the previous slot")
                    .isLessThanOrEqualTo(20);
            assertThat(afterSince - afterPrevious).as("rows read since a time").isLessThanOrEqualTo(200);
            assertThat(afterUndated - afterSince).as("rows read for a date").isLessThanOrEqualTo(50);
            return null;
        });
    }

    /**
     * The index by state leaves out the states every run passes through (V35): 30,000 succeeded runs write
     * nothing in it, and counting or listing the other states reads their rows only.
     */
    @Test
    void the_index_by_state_holds_only_the_rare_states_and_answers_for_them() {
        Instant first = Instant.parse("2026-11-01T00:00:00Z");
        insertRuns(
                "'MANUAL'",
                "'m-' || g",
                "CASE WHEN g % 10000 = 0 THEN 'FAILED' WHEN g % 15000 = 1 THEN 'READY' ELSE 'SUCCESS' END",
                first);
        store.tx(tx -> tx.update("ANALYZE ax_instance"));
        long indexBytes = store.tx(
                        tx -> tx.queryOne("SELECT pg_relation_size('ax_instance_state') AS n", r -> r.lng("n")))
                .orElseThrow();
        assertThat(indexBytes)
                .as("bytes of ax_instance_state: its root page and one leaf at most")
                .isLessThanOrEqualTo(2 * 8192);
        store.tx(tx -> {
            long before = instancesRead(tx);
            Map<RunState, Long> counts = store.runs()
                    .countInStates(
                            tx, List.of(RunState.FAILED, RunState.READY, RunState.RUNNING, RunState.WAITING_APPROVAL));
            long afterCounts = instancesRead(tx);
            List<RunRow> failed = store.runs()
                    .list(tx, new RunStore.RunFilter(null, RunState.FAILED, null, null), Long.MAX_VALUE, 10);
            long afterList = instancesRead(tx);
            assertThat(counts)
                    .containsExactlyInAnyOrderEntriesOf(Map.of(
                            RunState.FAILED,
                            3L,
                            RunState.READY,
                            2L,
                            RunState.RUNNING,
                            0L,
                            RunState.WAITING_APPROVAL,
                            0L));
            assertThat(failed).hasSize(3);
            assertThat(afterCounts - before).as("rows read to count").isLessThanOrEqualTo(10);
            assertThat(afterList - afterCounts)
                    .as("rows read to list FAILED runs")
                    .isLessThanOrEqualTo(10);
            return null;
        });
    }

    /**
     * 30,000 runs of the test task, the g-th (0 to 29,999) scheduled g minutes after {@code first}; cause, fire key
     * and state are SQL expressions of {@code g} and of {@code s}, its slot.
     */
    private void insertRuns(String cause, String fireKey, String state, Instant first) {
        store.tx(tx -> tx.update(
                "INSERT INTO ax_instance (task_id, task_name, task_version, cause, fire_key, scheduled_at, state,"
                        + " attempt, max_attempts, executor_group, ready_at, actor, node_id, created_at, updated_at, finished_at)"
                        + " SELECT ?, 't', 1, " + cause + ", " + fireKey + ", s, " + state
                        + ", 1, 1, 'default', s, 'test', 'n1', s, s, s"
                        + " FROM (SELECT g, CAST(? AS TIMESTAMPTZ) + g * INTERVAL '1 minute' AS s FROM generate_series(0, 29999) g) runs",
                task.id(),
                first));
    }

    private static long instancesRead(Tx tx) {
        return tx.queryOne(
                        "SELECT COALESCE(idx_tup_fetch, 0) + COALESCE(seq_tup_read, 0) AS n FROM pg_stat_xact_user_tables"
                                + " WHERE relname = 'ax_instance'",
                        r -> r.lng("n"))
                .orElseThrow();
    }

    private static long eventsFetched(Tx tx) {
        return tx.queryOne(
                        "SELECT COALESCE(idx_tup_fetch, 0) + COALESCE(seq_tup_read, 0) AS n FROM pg_stat_xact_user_tables"
                                + " WHERE relname = 'ax_event'",
                        r -> r.lng("n"))
                .orElseThrow();
    }

    /**
     * Sequential scans of ax_task and rows read from it by index, as this connection counted them: the pending
     * counters, which include the transactions not yet reported to the statistics collector (take a difference).
     */
    private static long[] taskReads(Tx tx) {
        return tx.queryOne(
                        "SELECT seq_scan, COALESCE(idx_tup_fetch, 0) AS fetched FROM pg_stat_xact_user_tables"
                                + " WHERE relname = 'ax_task'",
                        r -> new long[] {r.lng("seq_scan"), r.lng("fetched")})
                .orElseThrow();
    }

    private static String plan(Tx tx, String explain) {
        return String.join("\n", tx.query(explain + " " + LeaseStore.EXPIRED_LEASES, r -> r.str("QUERY PLAN"), 100));
    }

    /** Buffers the whole statement touched: the first "Buffers:" line of the plan, hits and reads. */
    private static long buffers(String plan) {
        Matcher m = Pattern.compile("Buffers: shared(?: hit=(\\d+))?(?: read=(\\d+))?")
                .matcher(plan);
        assertThat(m.find()).as(plan).isTrue();
        return (m.group(1) == null ? 0 : Long.parseLong(m.group(1)))
                + (m.group(2) == null ? 0 : Long.parseLong(m.group(2)));
    }

    private void insert(String table, int rows) {
        store.tx(tx -> tx.update("INSERT INTO " + table + " SELECT g FROM generate_series(1, " + rows + ") g"));
    }

    /** Refreshes until {@code table} was analyzed; every table analyzed meanwhile. */
    private List<String> analyzedOnceCountersArrive(String table) {
        List<String> analyzed = new ArrayList<>();
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            analyzed.addAll(store.statistics().refresh());
            return analyzed.contains(table);
        });
        return analyzed;
    }

    private long rowsInStatistics(String table) {
        return store.tx(tx -> tx.queryOne(
                        "SELECT CAST(reltuples AS BIGINT) AS n FROM pg_class WHERE relname = ?",
                        r -> r.lng("n"),
                        table))
                .orElseThrow();
    }
}
