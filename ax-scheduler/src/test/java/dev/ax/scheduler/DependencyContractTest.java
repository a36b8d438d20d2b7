package dev.ax.scheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.awaitility.Awaitility.await;

import dev.ax.domain.protocol.Completion;
import dev.ax.domain.protocol.Poll;
import dev.ax.domain.protocol.Register;
import dev.ax.domain.protocol.WorkItem;
import dev.ax.domain.run.BackfillState;
import dev.ax.domain.run.Cause;
import dev.ax.domain.run.EventType;
import dev.ax.domain.run.FailureKind;
import dev.ax.domain.run.RunState;
import dev.ax.domain.schedule.Schedules;
import dev.ax.domain.task.ValidationException;
import dev.ax.store.ClockBoundaries;
import dev.ax.store.DbConfig;
import dev.ax.store.Dialect;
import dev.ax.store.EventRow;
import dev.ax.store.RunRow;
import dev.ax.store.RunStore.RunFilter;
import dev.ax.store.Store;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Task dependencies on a real database, with the loops NOT running: a waiting run can only be
 * released by the transaction that ends its upstream run (no housekeeping pass, no poll), which
 * is what these tests prove by asserting the state right after {@code complete} returns.
 */
abstract class DependencyContractTest {
    Store store;
    SchedulerNode node;

    abstract DbConfig config();

    @BeforeEach
    void open() {
        store = Store.open(config());
        node = TestNodes.node(store, "n1");
        node.dispatcher().register(new Register("e1", "s1", List.of("default"), "test", 1, "t", List.of()));
        // A run triggered by an event takes the UTC date it is created on: a test's runs must all get the same one.
        ClockBoundaries.awaitClearOfTimeOfDay(store, ZoneOffset.UTC, LocalTime.MIDNIGHT, Duration.ofSeconds(30));
    }

    @AfterEach
    void close() {
        node.close();
        store.close();
    }

    // ---- helpers ----

    static Map<String, Object> task(
            String name,
            Map<String, Object> trigger,
            List<Map<String, Object>> dependsOn,
            Map<String, Object> dependencyPolicy,
            Map<String, Object> policy) {
        Map<String, Object> json =
                new LinkedHashMap<>(TestNodes.task(name, trigger, "echo " + name + " {{date}}", policy));
        if (dependsOn != null) {
            json.put("dependsOn", dependsOn);
        }
        if (dependencyPolicy != null) {
            json.put("dependencyPolicy", dependencyPolicy);
        }
        return json;
    }

    static Map<String, Object> sameDate(String task) {
        return Map.of("task", task, "scope", "sameDate");
    }

    RunRow row(long id) {
        return store.tx(tx -> store.runs().find(tx, id).orElseThrow());
    }

    List<EventRow> events(long id) {
        return store.tx(tx -> store.events().forRun(tx, id, 0, 1000));
    }

    EventRow event(long id, EventType type) {
        return events(id).stream()
                .filter(e -> e.type() == type)
                .reduce((a, b) -> b)
                .orElseThrow(() -> new AssertionError("run " + id + " has no " + type + " event: "
                        + events(id).stream().map(EventRow::type).toList()));
    }

    List<WorkItem> claimAll() throws InterruptedException {
        return node.dispatcher().poll(new Poll("e1", List.of("default"), 100, 0));
    }

    WorkItem claimOnly(long id) throws InterruptedException {
        List<WorkItem> items = claimAll();
        assertThat(items).extracting(WorkItem::instanceId).containsExactly(id);
        return items.getFirst();
    }

    void succeed(WorkItem item) {
        assertThat(node.dispatcher()
                        .complete(new Completion("e1", item.ref(), true, null, 0, "ok"))
                        .accepted())
                .isTrue();
    }

    void fail(WorkItem item) {
        assertThat(node.dispatcher()
                        .complete(
                                new Completion("e1", item.ref(), false, FailureKind.EXIT_CODE, 3, "exited with code 3"))
                        .accepted())
                .isTrue();
    }

    long trigger(String task) {
        return node.tasks().trigger(task, Map.of(), Cause.EVENT, "test");
    }

    List<RunRow> runs(String task) {
        return store
                .tx(tx -> store.runs().list(tx, new RunFilter(task, null, null, null), Long.MAX_VALUE, 1000))
                .stream()
                .sorted(Comparator.comparing(RunRow::scheduledAt).thenComparing(RunRow::id))
                .toList();
    }

    // ---- the classic chain ----

    @Test
    void
            the_report_waits_for_three_layers_of_its_date_says_which_failed_and_starts_in_the_transaction_of_the_last_success()
                    throws Exception {
        for (String layer : List.of("sync_layer1", "sync_layer2", "sync_layer3")) {
            node.tasks().create(task(layer, TestNodes.event(), null, null, null), "test");
        }
        node.tasks()
                .create(
                        task(
                                "report",
                                TestNodes.event(),
                                List.of(sameDate("sync_layer1"), sameDate("sync_layer2"), sameDate("sync_layer3")),
                                null,
                                null),
                        "test");

        long report = trigger("report");
        assertThat(row(report).state()).isEqualTo(RunState.WAITING_DEPENDENCY);
        assertThat(node.dependencies().waitingFor(report))
                .extracting(Dependencies.WaitingFor::task)
                .containsExactly("sync_layer1", "sync_layer2", "sync_layer3");
        assertThat(node.dependencies().waitingFor(report)).allSatisfy(w -> {
            assertThat(w.met()).isFalse();
            assertThat(w.instanceId()).isNull();
            assertThat(w.key())
                    .isEqualTo(LocalDate.ofInstant(row(report).scheduledAt(), ZoneOffset.UTC)
                            .toString());
        });

        long l1 = trigger("sync_layer1");
        long l2 = trigger("sync_layer2");
        long l3 = trigger("sync_layer3");
        Map<Long, WorkItem> claimed = new LinkedHashMap<>();
        claimAll().forEach(i -> claimed.put(i.instanceId(), i));
        assertThat(claimed.keySet()).containsExactlyInAnyOrder(l1, l2, l3); // the report is not claimable
        succeed(claimed.get(l1));
        fail(claimed.get(l2));
        succeed(claimed.get(l3));

        // layer 2 failed: the report does not run, and says why
        assertThat(row(report).state()).isEqualTo(RunState.WAITING_DEPENDENCY);
        assertThat(row(report).message()).contains("sync_layer2").contains("ended FAILED, run " + l2);
        List<Dependencies.WaitingFor> waiting = node.dependencies().waitingFor(report);
        assertThat(waiting)
                .filteredOn(Dependencies.WaitingFor::met)
                .extracting(Dependencies.WaitingFor::instanceId)
                .containsExactlyInAnyOrder(l1, l3);
        assertThat(waiting).filteredOn(w -> !w.met()).singleElement().satisfies(w -> {
            assertThat(w.task()).isEqualTo("sync_layer2");
            assertThat(w.state()).isEqualTo(RunState.FAILED);
            assertThat(w.instanceId()).isEqualTo(l2);
        });
        assertThat(claimAll()).isEmpty();

        // layer 2 is retried and succeeds: the report is released by that very transaction
        long retry = node.runs().retry(l2, "ops");
        WorkItem retried = claimOnly(retry);
        succeed(retried);
        assertThat(row(report).state()).isEqualTo(RunState.READY);
        EventRow layerDone = event(retry, EventType.SUCCEEDED);
        EventRow released = event(report, EventType.DEPENDENCY_MET);
        assertThat(released.id()).isGreaterThan(layerDone.id());
        if (store.db().dialect() == Dialect.POSTGRES) {
            // CURRENT_TIMESTAMP is the transaction's start on PostgreSQL: equal stamps = one transaction
            assertThat(released.at()).isEqualTo(layerDone.at());
        }
        assertThat(released.message()).contains("dependencies met");
        WorkItem reportItem = claimOnly(report);
        EventRow claimedAt = event(report, EventType.CLAIMED);
        assertThat(Duration.between(layerDone.at(), claimedAt.at())).isLessThan(Duration.ofSeconds(1));
        assertThat(claimedAt.at()).isAfterOrEqualTo(released.at());
        succeed(reportItem);
        assertThat(events(report))
                .extracting(EventRow::type)
                .containsSubsequence(
                        EventType.CREATED,
                        EventType.DEPENDENCY_MET,
                        EventType.UNBLOCKED,
                        EventType.CLAIMED,
                        EventType.SUCCEEDED);
        assertThat(node.loopErrors()).isZero();
    }

    @Test
    void the_cron_fired_report_waits_for_the_layers_of_its_slots_date_and_goes_when_the_last_one_succeeds()
            throws Exception {
        Map<String, Object> at1 = Map.of("type", "cron", "expression", "0 1 * * *", "timezone", "Asia/Shanghai");
        for (String layer : List.of("sync_layer1", "sync_layer2", "sync_layer3")) {
            node.tasks().create(task(layer, at1, null, null, null), "test");
        }
        node.tasks()
                .create(
                        task(
                                "report",
                                Map.of("type", "cron", "expression", "0 2 * * *", "timezone", "Asia/Shanghai"),
                                List.of(sameDate("sync_layer1"), sameDate("sync_layer2"), sameDate("sync_layer3")),
                                null,
                                null),
                        "test");
        // 02:00 has come: the report's latest slot is due (as after a restart), the layers' next slots are not.
        var t = store.tx(tx -> store.tasks().find(tx, "report").orElseThrow());
        var schedule = Schedules.of(t.definition().trigger());
        Instant now = store.tx(tx -> tx.now());
        Instant slot = schedule.nextAfter(now.minus(Duration.ofDays(1))).orElseThrow();
        store.tx(tx -> tx.update("UPDATE ax_task SET next_fire_at = ? WHERE id = ?", slot, t.id()));

        assertThat(node.firing().tick()).isEqualTo(1);
        RunRow fired = runs("report").getFirst();
        assertThat(fired.cause()).isEqualTo(Cause.CRON);
        assertThat(fired.state()).isEqualTo(RunState.WAITING_DEPENDENCY);
        LocalDate day = date(slot);
        assertThat(node.dependencies().waitingFor(fired.id()))
                .extracting(Dependencies.WaitingFor::key)
                .containsOnly(day.toString());
        assertThat(claimAll()).isEmpty();

        for (String layer : List.of("sync_layer1", "sync_layer2", "sync_layer3")) {
            node.backfills().start(layer, Map.of("from", day.toString(), "to", day.toString()), "ops");
        }
        assertThat(node.housekeeping().backfills()).isEqualTo(3);
        List<WorkItem> layers = claimAll();
        assertThat(layers).hasSize(3);
        succeed(layers.get(0));
        succeed(layers.get(1));
        assertThat(row(fired.id()).state()).isEqualTo(RunState.WAITING_DEPENDENCY);
        succeed(layers.get(2));
        assertThat(row(fired.id()).state()).isEqualTo(RunState.READY);
        succeed(claimOnly(fired.id()));
    }

    @Test
    void an_upstream_failure_skips_or_fails_the_waiting_runs_by_policy_and_a_skip_reaches_their_own_dependents()
            throws Exception {
        node.tasks().create(task("src", TestNodes.event(), null, null, null), "test");
        node.tasks()
                .create(
                        task(
                                "skipper",
                                TestNodes.event(),
                                List.of(sameDate("src")),
                                Map.of("onUpstreamFailure", "SKIP"),
                                null),
                        "test");
        node.tasks()
                .create(
                        task(
                                "failer",
                                TestNodes.event(),
                                List.of(sameDate("src")),
                                Map.of("onUpstreamFailure", "FAIL"),
                                null),
                        "test");
        node.tasks()
                .create(
                        task(
                                "after_skipper",
                                TestNodes.event(),
                                List.of(sameDate("skipper")),
                                Map.of("onUpstreamFailure", "SKIP"),
                                null),
                        "test");
        node.tasks().create(task("waiter", TestNodes.event(), List.of(sameDate("src")), null, null), "test");
        long skipper = trigger("skipper");
        long failer = trigger("failer");
        long after = trigger("after_skipper");
        long waiter = trigger("waiter");
        long src = trigger("src");
        fail(claimOnly(src));

        assertThat(row(skipper).state()).isEqualTo(RunState.SKIPPED);
        assertThat(row(skipper).message())
                .contains("onUpstreamFailure SKIP")
                .contains("src (sameDate")
                .contains("ended FAILED, run " + src);
        assertThat(event(skipper, EventType.SKIPPED).data().get("waitingFor").toString())
                .contains("src");
        assertThat(row(failer).state()).isEqualTo(RunState.FAILED);
        assertThat(row(failer).message()).contains("onUpstreamFailure FAIL").contains("run " + src);
        assertThat(event(failer, EventType.FAILED).to()).isEqualTo(RunState.FAILED);
        assertThat(row(after).state()).isEqualTo(RunState.SKIPPED);
        assertThat(row(after).message()).contains("skipper").contains("ended SKIPPED, run " + skipper);
        assertThat(row(waiter).state()).isEqualTo(RunState.WAITING_DEPENDENCY);

        // a new downstream run after the failure ends at once, never holding anything
        long late = trigger("skipper");
        assertThat(row(late).state()).isEqualTo(RunState.SKIPPED);
        assertThat(events(late)).extracting(EventRow::type).containsExactly(EventType.CREATED, EventType.SKIPPED);

        // ... and a run already waiting on that new run's task hears of it in the same transaction
        node.tasks()
                .create(
                        task(
                                "x2",
                                TestNodes.event(),
                                List.of(sameDate("src")),
                                Map.of("onUpstreamFailure", "SKIP"),
                                null),
                        "test");
        node.tasks()
                .create(
                        task(
                                "y2",
                                TestNodes.event(),
                                List.of(sameDate("x2")),
                                Map.of("onUpstreamFailure", "SKIP"),
                                null),
                        "test");
        long y2 = trigger("y2");
        assertThat(row(y2).state()).isEqualTo(RunState.WAITING_DEPENDENCY);
        long x2 = trigger("x2");
        assertThat(row(x2).state()).isEqualTo(RunState.SKIPPED);
        assertThat(row(y2).state()).isEqualTo(RunState.SKIPPED);
        assertThat(row(y2).message()).contains("x2 (sameDate").contains("ended SKIPPED, run " + x2);
    }

    @Test
    void an_upstream_run_skipped_because_its_task_was_busy_does_not_hide_the_run_still_going() throws Exception {
        node.tasks().create(task("busy", TestNodes.event(), null, null, Map.of("overflow", "SKIP")), "test");
        node.tasks()
                .create(
                        task(
                                "after_busy",
                                TestNodes.event(),
                                List.of(sameDate("busy")),
                                Map.of("onUpstreamFailure", "FAIL"),
                                null),
                        "test");
        long first = trigger("busy");
        WorkItem going = claimOnly(first);
        long second = trigger("busy");
        assertThat(row(second).state()).isEqualTo(RunState.SKIPPED);
        long down = trigger("after_busy");
        assertThat(row(down).state()).isEqualTo(RunState.WAITING_DEPENDENCY);
        assertThat(row(down).message()).contains("RUNNING, run " + first);
        succeed(going);
        assertThat(row(down).state()).isEqualTo(RunState.READY);
    }

    @Test
    void a_wait_past_its_deadline_ends_failed_with_a_deadline_event() throws Exception {
        node.tasks().create(task("src", TestNodes.event(), null, null, null), "test");
        node.tasks()
                .create(
                        task(
                                "report",
                                TestNodes.event(),
                                List.of(sameDate("src")),
                                Map.of("waitDeadline", "PT1S"),
                                null),
                        "test");
        long report = trigger("report");
        assertThat(node.housekeeping().dependencyDeadlines()).isZero();
        await().atMost(Duration.ofSeconds(10)).until(() -> node.housekeeping().dependencyDeadlines() == 1);
        assertThat(row(report).state()).isEqualTo(RunState.FAILED);
        EventRow deadline = event(report, EventType.DEPENDENCY_DEADLINE);
        assertThat(deadline.to()).isEqualTo(RunState.FAILED);
        assertThat(deadline.message())
                .contains("deadline passed")
                .contains("src (sameDate")
                .contains("no run yet");
    }

    @Test
    void with_previous_slot_each_slot_waits_for_the_one_before_even_through_a_failure_and_a_retry() throws Exception {
        node.tasks()
                .create(
                        task(
                                "daily",
                                Map.of("type", "cron", "expression", "0 2 * * *", "timezone", "Asia/Shanghai"),
                                List.of(Map.of("scope", "previousSlot")),
                                null,
                                Map.of("overflow", "ALLOW")),
                        "test");
        node.backfills().start("daily", Map.of("from", "2026-10-01", "to", "2026-10-03", "parallelism", 3), "ops");
        assertThat(node.housekeeping().backfills()).isEqualTo(3);
        List<RunRow> slots = runs("daily");
        assertThat(slots)
                .extracting(RunRow::state)
                .containsExactly(RunState.READY, RunState.WAITING_DEPENDENCY, RunState.WAITING_DEPENDENCY);
        long s1 = slots.get(0).id();
        long s2 = slots.get(1).id();
        long s3 = slots.get(2).id();

        succeed(claimOnly(s1));
        assertThat(row(s2).state()).isEqualTo(RunState.READY);
        assertThat(row(s3).state()).isEqualTo(RunState.WAITING_DEPENDENCY);
        fail(claimOnly(s2));
        assertThat(row(s3).state()).isEqualTo(RunState.WAITING_DEPENDENCY);
        assertThat(row(s3).message()).contains("daily (previousSlot").contains("ended FAILED, run " + s2);

        long retry = node.runs().retry(s2, "ops");
        succeed(claimOnly(retry));
        assertThat(row(s3).state()).isEqualTo(RunState.READY);
        assertThat(event(s3, EventType.DEPENDENCY_MET).id())
                .isGreaterThan(event(retry, EventType.SUCCEEDED).id());
        succeed(claimOnly(s3));
    }

    @Test
    void latest_takes_a_success_within_the_window_and_waits_without_one() throws Exception {
        node.tasks().create(task("fx", TestNodes.event(), null, null, null), "test");
        node.tasks()
                .create(
                        task(
                                "price",
                                TestNodes.event(),
                                List.of(Map.of("task", "fx", "scope", "latest", "window", "PT1H")),
                                null,
                                Map.of("overflow", "ALLOW")),
                        "test");
        long first = trigger("price");
        assertThat(row(first).state()).isEqualTo(RunState.WAITING_DEPENDENCY);
        long fx = trigger("fx");
        succeed(claimOnly(fx));
        assertThat(row(first).state()).isEqualTo(RunState.READY);
        succeed(claimOnly(first));

        long second = trigger("price");
        assertThat(row(second).state()).isEqualTo(RunState.READY); // fx succeeded within the hour
        succeed(claimOnly(second));

        // the same success, two hours old, is outside the window
        store.tx(tx -> tx.update(
                "UPDATE ax_instance SET finished_at = " + tx.dialect().plusMillis("CURRENT_TIMESTAMP")
                        + ", scheduled_at = " + tx.dialect().plusMillis("CURRENT_TIMESTAMP") + " WHERE id = ?",
                -7_200_000L,
                -7_200_000L,
                fx));
        long third = trigger("price");
        assertThat(row(third).state()).isEqualTo(RunState.WAITING_DEPENDENCY);
        assertThat(node.dependencies().waitingFor(third)).singleElement().satisfies(w -> {
            assertThat(w.scope()).isEqualTo("latest");
            assertThat(w.instanceId()).isNull();
            assertThat(w.text()).contains("fx (latest since").contains("no run yet");
        });
    }

    @Test
    void a_cascade_backfill_runs_the_dependent_task_for_each_date_only_after_the_upstream_run_of_that_date()
            throws Exception {
        node.tasks()
                .create(
                        task(
                                "up",
                                Map.of("type", "cron", "expression", "0 1 * * *", "timezone", "Asia/Shanghai"),
                                null,
                                null,
                                Map.of("overflow", "ALLOW")),
                        "test");
        node.tasks()
                .create(
                        task(
                                "down",
                                Map.of("type", "cron", "expression", "0 2 * * *", "timezone", "Asia/Shanghai"),
                                List.of(sameDate("up")),
                                null,
                                Map.of("overflow", "ALLOW")),
                        "test");
        Map<String, Object> body = Map.of("from", "2026-10-01", "to", "2026-10-05", "parallelism", 5, "cascade", true);

        Backfills.Started dry = node.backfills().start("up", withDryRun(body), "ops");
        assertThat(dry.backfillId()).isNull();
        assertThat(dry.plan()).hasSize(5);
        assertThat(dry.cascaded()).singleElement().satisfies(c -> {
            assertThat(c.taskName()).isEqualTo("down");
            assertThat(c.backfillId()).isNull();
            assertThat(c.plan())
                    .hasSize(5)
                    .allSatisfy(p -> assertThat(p.action()).isEqualTo("run"));
        });
        assertThat(runs("up")).isEmpty();

        Backfills.Started started = node.backfills().start("up", body, "ops");
        assertThat(started.cascaded())
                .singleElement()
                .satisfies(c -> assertThat(c.backfillId()).isGreaterThan(started.backfillId()));
        assertThat(node.housekeeping().backfills()).isEqualTo(10);
        assertThat(runs("down")).extracting(RunRow::state).containsOnly(RunState.WAITING_DEPENDENCY);

        // finish the upstream dates out of order: each downstream date is released by its own upstream date
        List<WorkItem> ups = new ArrayList<>(claimAll());
        assertThat(ups).hasSize(5).allSatisfy(i -> assertThat(i.taskName()).isEqualTo("up"));
        ups.sort(Comparator.comparing(WorkItem::scheduledAt).reversed());
        for (WorkItem up : ups) {
            succeed(up);
            List<RunRow> ready = runs("down").stream()
                    .filter(r -> r.state() == RunState.READY)
                    .toList();
            assertThat(ready)
                    .singleElement()
                    .satisfies(r -> assertThat(date(r.scheduledAt())).isEqualTo(date(up.scheduledAt())));
            succeed(claimOnly(ready.getFirst().id()));
        }
        Map<LocalDate, RunRow> upByDate = new LinkedHashMap<>();
        runs("up").forEach(r -> upByDate.put(date(r.scheduledAt()), r));
        List<RunRow> downs = runs("down");
        assertThat(downs).hasSize(5).allSatisfy(d -> {
            assertThat(d.state()).isEqualTo(RunState.SUCCESS);
            assertThat(d.cause()).isEqualTo(Cause.BACKFILL);
            RunRow up = upByDate.get(date(d.scheduledAt()));
            assertThat(up.state()).isEqualTo(RunState.SUCCESS);
            assertThat(d.startedAt()).as("claimed once upstream succeeded").isAfterOrEqualTo(up.finishedAt());
            assertThat(event(d.id(), EventType.DEPENDENCY_MET).at()).isAfterOrEqualTo(up.finishedAt());
            assertThat(event(d.id(), EventType.DEPENDENCY_MET).message()).contains("run " + up.id());
        });
        node.housekeeping().backfills();
        assertThat(node.backfills()
                        .progress(started.cascaded().getFirst().backfillId())
                        .backfill()
                        .state())
                .isEqualTo(BackfillState.DONE);
    }

    @Test
    void an_upstream_run_from_before_business_dates_were_recorded_counts_for_its_date() throws Exception {
        node.tasks()
                .create(
                        task(
                                "up",
                                Map.of("type", "cron", "expression", "0 1 * * *", "timezone", "Asia/Shanghai"),
                                null,
                                null,
                                null),
                        "test");
        node.tasks()
                .create(
                        task(
                                "down",
                                Map.of("type", "cron", "expression", "0 2 * * *", "timezone", "Asia/Shanghai"),
                                List.of(sameDate("up")),
                                null,
                                null),
                        "test");
        // 01:00 on 2026-10-01 in Shanghai, run and succeeded before the upgrade to V21: no business_date
        long old = trigger("up");
        succeed(claimOnly(old));
        store.tx(tx -> tx.update(
                "UPDATE ax_instance SET business_date = NULL, scheduled_at = ? WHERE id = ?",
                Instant.parse("2026-09-30T17:00:00Z"),
                old));

        node.backfills().start("down", Map.of("from", "2026-10-01", "to", "2026-10-01"), "ops");
        assertThat(node.housekeeping().backfills()).isEqualTo(1);
        RunRow down = runs("down").getFirst();
        assertThat(down.state()).isEqualTo(RunState.READY);
        assertThat(event(down.id(), EventType.CREATED).to()).isEqualTo(RunState.READY);
    }

    @Test
    void an_upstream_run_from_before_anything_depended_on_it_counts_for_its_date() throws Exception {
        node.tasks()
                .create(
                        task(
                                "up",
                                Map.of("type", "cron", "expression", "0 1 * * *", "timezone", "Asia/Shanghai"),
                                null,
                                null,
                                null),
                        "test");
        // Nothing depends on "up" yet: its run carries no business date (none is indexed for it).
        long before = trigger("up");
        succeed(claimOnly(before));
        Optional<LocalDate> undated = store.tx(tx -> store.dependencies().businessDate(tx, before));
        assertThat(undated).isEmpty();
        store.tx(tx -> tx.update(
                "UPDATE ax_instance SET scheduled_at = ? WHERE id = ?", Instant.parse("2026-09-30T17:00:00Z"), before));

        node.tasks()
                .create(
                        task(
                                "down",
                                Map.of("type", "cron", "expression", "0 2 * * *", "timezone", "Asia/Shanghai"),
                                List.of(sameDate("up")),
                                null,
                                null),
                        "test");
        long after = trigger("up");
        Optional<LocalDate> dated = store.tx(tx -> store.dependencies().businessDate(tx, after));
        assertThat(dated).isPresent();

        // Found by its slot in the upstream's zone: 01:00 on 2026-10-01 in Shanghai.
        node.backfills().start("down", Map.of("from", "2026-10-01", "to", "2026-10-01"), "ops");
        assertThat(node.housekeeping().backfills()).isEqualTo(1);
        RunRow down = runs("down").getFirst();
        assertThat(down.state()).isEqualTo(RunState.READY);
        assertThat(event(down.id(), EventType.CREATED).to()).isEqualTo(RunState.READY);
    }

    @Test
    void saving_refuses_unknown_tasks_self_dependencies_and_cycles_and_changes_nothing() {
        node.tasks().create(task("a", TestNodes.event(), null, null, null), "test");
        node.tasks().create(task("b", TestNodes.event(), List.of(sameDate("a")), null, null), "test");
        node.tasks().create(task("c", TestNodes.event(), List.of(sameDate("b")), null, null), "test");

        ValidationException unknown = catchThrowableOfType(
                ValidationException.class,
                () -> node.tasks()
                        .create(
                                task("d", TestNodes.event(), List.of(sameDate("a"), sameDate("nope")), null, null),
                                "test"));
        assertThat(unknown.errors()).singleElement().satisfies(e -> {
            assertThat(e.field()).isEqualTo("dependsOn[1].task");
            assertThat(e.reason()).contains("no task named nope");
        });
        assertThat(exists("d")).isFalse();

        ValidationException cycle = catchThrowableOfType(
                ValidationException.class,
                () -> node.tasks()
                        .update("a", task("a", TestNodes.event(), List.of(sameDate("c")), null, null), "test"));
        assertThat(cycle.errors()).singleElement().satisfies(e -> {
            assertThat(e.field()).isEqualTo("dependsOn");
            assertThat(e.reason()).contains("dependency cycle: a → c → b → a");
        });
        assertThat(store.tx(tx -> store.tasks().find(tx, "a")).orElseThrow().version())
                .isEqualTo(1);

        ConflictException inUse =
                catchThrowableOfType(ConflictException.class, () -> node.tasks().delete("a", "test"));
        assertThat(inUse.getMessage()).contains("dependsOn of b");
        assertThat(exists("a")).isTrue();
    }

    private boolean exists(String task) {
        return store.tx(tx -> store.tasks().find(tx, task)).isPresent();
    }

    private static Map<String, Object> withDryRun(Map<String, Object> body) {
        Map<String, Object> b = new LinkedHashMap<>(body);
        b.put("dryRun", true);
        return b;
    }

    private static LocalDate date(Instant at) {
        return LocalDate.ofInstant(at, ZoneId.of("Asia/Shanghai"));
    }
}
