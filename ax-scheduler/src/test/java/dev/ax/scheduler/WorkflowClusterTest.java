package dev.ax.scheduler;

import static dev.ax.scheduler.TestNodes.event;
import static dev.ax.scheduler.TestNodes.task;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ax.domain.run.EventType;
import dev.ax.domain.workflow.WorkflowBackfillState;
import dev.ax.domain.workflow.WorkflowRunState;
import dev.ax.store.DbConfig;
import dev.ax.store.Store;
import dev.ax.store.WorkflowRunStore;
import dev.ax.store.WorkflowRunStore.RunEvent;
import dev.ax.store.WorkflowRunStore.WorkflowRunRow;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Workflow firing and backfill with real loops on a database several nodes share: one run per slot, whatever the number of nodes. */
abstract class WorkflowClusterTest {
    /** A fresh database the nodes share. */
    abstract DbConfig config();

    Store storeA;
    Store storeB;

    @BeforeEach
    void open() {
        DbConfig db = config();
        storeA = Store.open(db);
        storeB = Store.open(db);
    }

    @AfterEach
    void close() {
        storeA.close();
        storeB.close();
    }

    static Map<String, Object> twoNodes(String name, String cron) {
        return Map.of(
                "name",
                name,
                "trigger",
                Map.of("type", "cron", "expression", cron, "timezone", "UTC"),
                "nodes",
                List.of(Map.of("name", "extract", "task", "t_extract"), Map.of("name", "report", "task", "t_report")),
                "edges",
                List.of(Map.of("from", "extract", "to", "report")));
    }

    void tasks(SchedulerNode n) {
        n.tasks().create(task("t_extract", event(), "echo extract {{date}}", Map.of("overflow", "ALLOW")), "test");
        n.tasks().create(task("t_report", event(), "echo report {{date}}", Map.of("overflow", "ALLOW")), "test");
    }

    List<WorkflowRunRow> runs(String workflow) {
        return storeA.tx(tx -> storeA.workflowRuns().list(tx, workflow, Long.MAX_VALUE, 10_000)).stream()
                .sorted(Comparator.comparing(WorkflowRunRow::scheduledAt))
                .toList();
    }

    @Test
    void two_scheduler_nodes_firing_a_cron_workflow_make_exactly_one_run_per_slot() throws Exception {
        SchedulerNode a = TestNodes.node(storeA, "node-a");
        SchedulerNode b = TestNodes.node(storeB, "node-b");
        try (a;
                b) {
            tasks(a);
            a.workflows().service().create(twoNodes("every_second", "* * * * * *"), "test");
            a.start();
            b.start();
            try (var e1 = new TestNodes.FastExecutor(a.dispatcher(), "exec-a");
                    var e2 = new TestNodes.FastExecutor(b.dispatcher(), "exec-b")) {
                await().atMost(Duration.ofSeconds(30))
                        .until(() -> runs("every_second").stream()
                                        .filter(r -> r.state() == WorkflowRunState.SUCCESS)
                                        .count()
                                >= 6);
                assertThat(e1.errors() + e2.errors()).isZero();
            }
            a.close();
            b.close();
            List<WorkflowRunRow> runs = runs("every_second");
            List<Instant> slots = runs.stream().map(WorkflowRunRow::scheduledAt).toList();
            assertThat(slots).doesNotHaveDuplicates();
            assertThat(runs.stream().map(WorkflowRunRow::fireKey).toList()).doesNotHaveDuplicates();
            // no slot missed between the first and the last
            assertThat(slots).hasSize((int) ChronoUnit.SECONDS.between(slots.getFirst(), slots.getLast()) + 1);
            // each run made one run per node: a duplicate run would have made two
            for (WorkflowRunRow r : runs.stream()
                    .filter(r -> r.state() == WorkflowRunState.SUCCESS)
                    .toList()) {
                Map<String, Integer> counts =
                        storeA.tx(tx -> storeA.workflowRuns().instanceCounts(tx, r.id()));
                assertThat(counts).isEqualTo(Map.of("t_extract", 1, "t_report", 1));
            }
            assertThat(a.workflows().firedCount() + b.workflows().firedCount()).isEqualTo(runs.size());
            assertThat(a.loopErrors() + b.loopErrors()).isZero();
        }
    }

    @Test
    void a_5_day_backfill_with_parallelism_2_makes_5_dated_runs_never_more_than_2_at_once_and_repeating_it_makes_none()
            throws Exception {
        SchedulerNode a = TestNodes.node(storeA, "node-a");
        try (a) {
            tasks(a);
            a.workflows().service().create(twoNodes("daily", "0 2 * * *"), "test");
            var started = a.workflows()
                    .backfills()
                    .start("daily", Map.of("from", "2026-10-01", "to", "2026-10-05", "parallelism", 2), "ops");
            assertThat(started.slots()).isEqualTo(5);
            assertThat(started.plan()).allSatisfy(p -> assertThat(p.action()).isEqualTo("run"));
            a.start();
            try (var executor = new ConcurrencyClusterTest.SlowExecutor(a.dispatcher(), "e1", 150)) {
                await().atMost(Duration.ofSeconds(60))
                        .until(() -> a.workflows()
                                        .backfills()
                                        .progress(started.backfillId())
                                        .backfill()
                                        .state()
                                == WorkflowBackfillState.DONE);
            }
            List<WorkflowRunRow> runs = runs("daily");
            assertThat(runs).hasSize(5).allSatisfy(r -> {
                assertThat(r.state()).isEqualTo(WorkflowRunState.SUCCESS);
                assertThat(r.cause()).isEqualTo("backfill");
            });
            assertThat(runs.stream()
                            .map(r -> LocalDate.ofInstant(r.scheduledAt(), ZoneOffset.UTC))
                            .toList())
                    .isEqualTo(LocalDate.parse("2026-10-01")
                            .datesUntil(LocalDate.parse("2026-10-06"))
                            .toList());
            // every node's run carries the run's slot, so {{date}} renders the business date
            for (WorkflowRunRow r : runs) {
                List<WorkflowRunStore.NodeRunRow> nodes =
                        storeA.tx(tx -> storeA.workflowRuns().nodes(tx, r.id()));
                for (var n : nodes) {
                    Instant at = storeA.tx(tx ->
                            storeA.runs().find(tx, n.instanceId()).orElseThrow().scheduledAt());
                    assertThat(at).isEqualTo(r.scheduledAt());
                }
            }
            // never more than 2 at once: replay the runs' start and finish events in the order they were written
            List<RunEvent> events = new ArrayList<>();
            for (WorkflowRunRow r : runs) {
                events.addAll(storeA.tx(tx -> storeA.workflowRuns().events(tx, r.id())));
            }
            events.sort(Comparator.comparingLong(RunEvent::id));
            int active = 0;
            int most = 0;
            for (RunEvent e : events) {
                active += e.type() == EventType.WORKFLOW_RUN_STARTED
                        ? 1
                        : e.type() == EventType.WORKFLOW_RUN_FINISHED ? -1 : 0;
                most = Math.max(most, active);
            }
            assertThat(most).isEqualTo(2);
            // oldest first
            assertThat(runs.stream()
                            .sorted(Comparator.comparingLong(WorkflowRunRow::id))
                            .map(WorkflowRunRow::scheduledAt)
                            .toList())
                    .isSortedAccordingTo(Comparator.naturalOrder());

            var again = a.workflows()
                    .backfills()
                    .start("daily", Map.of("from", "2026-10-01", "to", "2026-10-05", "parallelism", 2), "ops");
            assertThat(again.plan()).allSatisfy(p -> assertThat(p.action()).isEqualTo("skip"));
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> a.workflows()
                                    .backfills()
                                    .progress(again.backfillId())
                                    .backfill()
                                    .state()
                            == WorkflowBackfillState.DONE);
            assertThat(runs("daily")).hasSize(5);
            assertThat(a.loopErrors()).isZero();
        }
    }
}
