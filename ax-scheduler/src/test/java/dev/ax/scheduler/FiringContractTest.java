package dev.ax.scheduler;

import static dev.ax.scheduler.TestNodes.cron;
import static dev.ax.scheduler.TestNodes.task;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ax.domain.run.Cause;
import dev.ax.domain.run.EventType;
import dev.ax.domain.run.RunState;
import dev.ax.domain.schedule.Schedules;
import dev.ax.store.ClockBoundaries;
import dev.ax.store.DbConfig;
import dev.ax.store.EventRow;
import dev.ax.store.NewRun;
import dev.ax.store.RunRow;
import dev.ax.store.RunStore.RunFilter;
import dev.ax.store.Store;
import dev.ax.store.TaskRow;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Invariants 1–3 on each database: one run per slot, database time, nothing missed silently. */
abstract class FiringContractTest {
    Store store;
    SchedulerNode node;

    abstract DbConfig config();

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

    /** The duplicate-run incident: a job that finishes in milliseconds must not be fired again by the next scan. */
    @Test
    void fires_once_per_slot_when_run_finishes_in_milliseconds() throws Exception {
        node.tasks().create(task("daily_sync", cron("30 1 * * *"), "true", null), "test");
        // One second back must lie between the latest 01:30 slot and the next, so that the tick has exactly one slot to
        // fire.
        ClockBoundaries.awaitClearOfTimeOfDay(store, ZoneOffset.UTC, LocalTime.of(1, 30, 1), Duration.ofSeconds(10));
        moveNextFireTo("daily_sync", Duration.ofSeconds(-1));
        try (var executor = new TestNodes.FastExecutor(node.dispatcher(), "fast")) {
            assertThat(node.firing().tick()).isEqualTo(1);
            await().atMost(Duration.ofSeconds(10)).until(() -> executor.completed() == 1);
            for (int i = 0; i < 20; i++) {
                node.firing().tick();
            }
            assertThat(instancesOf("daily_sync"))
                    .hasSize(1)
                    .allSatisfy(r -> assertThat(r.state().isSuccessful()).isTrue());
            assertThat(executor.errors()).isZero();
        }
        TaskRow t = taskRow("daily_sync");
        assertThat(t.nextFireAt())
                .isAfter(Instant.now().plus(Duration.ofHours(1)).minus(Duration.ofDays(1)));
    }

    @Test
    void every_second_task_gets_one_instance_per_slot_and_no_gaps() throws Exception {
        node.tasks().create(task("tick", cron("* * * * * *"), "true", null), "test");
        node.start();
        try (var executor = new TestNodes.FastExecutor(node.dispatcher(), "fast")) {
            await().atMost(Duration.ofSeconds(15)).until(() -> executor.completed() >= 4);
        }
        node.close();
        List<RunRow> runs = instancesOf("tick");
        assertOneInstancePerConsecutiveSecond(runs);
        assertThat(node.loopErrors()).isZero();
    }

    @Test
    void the_firing_loop_keeps_ticking_on_an_empty_database() {
        node.start();
        await().atMost(Duration.ofSeconds(10)).until(() -> node.firingLoop().ticks() >= 3);
        assertThat(node.loopErrors()).isZero();
    }

    @Test
    void a_second_insert_for_the_same_slot_is_refused_by_the_unique_index() {
        node.tasks().create(task("daily", cron("0 2 * * *"), "true", null), "test");
        TaskRow t = taskRow("daily");
        var slot = new NewRun(
                t.id(),
                t.name(),
                t.version(),
                Cause.CRON,
                "2026-11-29T02:00:00Z",
                Instant.parse("2026-11-29T02:00:00Z"),
                Map.of(),
                RunState.READY,
                1,
                "default",
                "test",
                "n1",
                null,
                null,
                null);
        Optional<Long> first = store.tx(tx -> store.runs().create(tx, slot));
        Optional<Long> second = store.tx(tx -> store.runs().create(tx, slot));
        assertThat(first).isPresent();
        assertThat(second).isEmpty();
        assertThat(instancesOf("daily")).hasSize(1);
    }

    @Test
    void fire_once_runs_the_latest_missed_slot_and_records_the_others() {
        node.tasks().create(task("minutely", cron("* * * * *"), "true", Map.of("misfire", "FIRE_ONCE")), "test");
        moveNextFireTo("minutely", Duration.ofMinutes(-10));
        node.firing().tick();
        List<RunRow> runs = instancesOf("minutely");
        // Ten minutes back to now there are 11 slots (12 if the minute ends before the tick); the latest is inside the
        // 60 s window, on time.
        assertThat(runs).hasSizeBetween(1, 2);
        List<EventRow> skipped = events("minutely", EventType.MISFIRE_SKIPPED);
        assertThat(skipped).hasSizeBetween(8, 10);
        assertThat(events("minutely", EventType.MISFIRE_CAUGHT_UP)).hasSize(1);
    }

    @Test
    void skip_runs_no_missed_slot_and_leaves_an_event_for_each() {
        node.tasks().create(task("minutely", cron("* * * * *"), "true", Map.of("misfire", "SKIP")), "test");
        moveNextFireTo("minutely", Duration.ofMinutes(-10));
        // Lateness is judged from before the tick: a later reading may be in the next minute and make the on-time run
        // look late.
        Instant ticked = dbNow();
        node.firing().tick();
        long late = instancesOf("minutely").stream()
                .filter(r -> r.scheduledAt().isBefore(ticked.minusSeconds(60)))
                .count();
        assertThat(late).isZero();
        assertThat(events("minutely", EventType.MISFIRE_SKIPPED)).hasSizeBetween(9, 11);
    }

    @Test
    void fire_all_runs_every_missed_slot_oldest_first() {
        node.tasks().create(task("minutely", cron("* * * * *"), "true", Map.of("misfire", "FIRE_ALL")), "test");
        // Ten minutes back to now there are 11 slots, and a 12th if the minute ends before the tick.
        ClockBoundaries.awaitClearOfMinuteEnd(store, Duration.ofSeconds(10));
        moveNextFireTo("minutely", Duration.ofMinutes(-10));
        node.firing().tick();
        List<RunRow> runs = instancesOf("minutely");
        assertThat(runs).hasSize(11);
        assertThat(events("minutely", EventType.MISFIRE_SKIPPED)).isEmpty();
    }

    @Test
    void pausing_fires_nothing_and_resume_follows_the_misfire_policy() {
        node.tasks().create(task("minutely", cron("* * * * *"), "true", Map.of("misfire", "SKIP")), "test");
        node.tasks().setPaused("minutely", true, "test");
        moveNextFireTo("minutely", Duration.ofMinutes(-5));
        node.firing().tick();
        assertThat(instancesOf("minutely")).isEmpty();
        node.tasks().setPaused("minutely", false, "test");
        // Lateness is judged from before the tick: a later reading may be in the next minute and make the on-time run
        // look late.
        Instant resumed = dbNow();
        node.firing().tick();
        assertThat(instancesOf("minutely").stream().filter(r -> r.scheduledAt().isBefore(resumed.minusSeconds(60))))
                .isEmpty();
        assertThat(events("minutely", EventType.MISFIRE_SKIPPED)).isNotEmpty();
    }

    @Test
    void editing_a_task_without_changing_its_trigger_keeps_its_next_slot() {
        node.tasks().create(task("daily", cron("0 2 * * *"), "true", null), "test");
        Instant before = taskRow("daily").nextFireAt();
        node.tasks().update("daily", task("daily", cron("0 2 * * *"), "echo changed", null), "test");
        assertThat(taskRow("daily").nextFireAt()).isEqualTo(before);
        assertThat(taskRow("daily").version()).isEqualTo(2);
        assertThat(node.firing().tick()).isZero();
    }

    /**
     * One firing batch holding tasks whose runs are written together (overflow ALLOW) and tasks
     * whose runs go through the gate one by one (a limit with SKIP, an idempotency key): each slot
     * gets one run, decided as the gate decides it.
     */
    @Test
    void a_batch_of_unlimited_and_gated_tasks_gives_each_slot_one_run_decided_by_its_policy() {
        node.tasks().create(task("unlimited", cron("* * * * * *"), "true", Map.of("overflow", "ALLOW")), "test");
        node.tasks()
                .create(
                        task("skipping", cron("* * * * * *"), "true", Map.of("overflow", "SKIP", "maxConcurrency", 1)),
                        "test");
        node.tasks()
                .create(
                        task(
                                "keyed",
                                cron("* * * * * *"),
                                "true",
                                Map.of("overflow", "ALLOW", "idempotencyKey", "{{taskName}}")),
                        "test");
        Map<String, Instant> from = new HashMap<>();
        for (String name : List.of("unlimited", "skipping", "keyed")) {
            moveNextFireTo(name, Duration.ofSeconds(-1));
            from.put(name, taskRow(name).nextFireAt());
        }
        int created = node.firing().tick();

        long slots = 0;
        for (String name : List.of("unlimited", "skipping", "keyed")) {
            List<RunRow> runs = instancesOf(name);
            // From the slot it stood at to the one it stands at now: every slot once, and at least two.
            assertOneInstancePerConsecutiveSecond(runs);
            assertThat(runs).hasSizeGreaterThanOrEqualTo(2);
            assertThat(runs.stream().map(RunRow::scheduledAt).min(Instant::compareTo))
                    .contains(from.get(name));
            assertThat(runs.stream().map(RunRow::scheduledAt).max(Instant::compareTo))
                    .contains(taskRow(name).nextFireAt().minusSeconds(1));
            slots += runs.size();
        }
        assertThat(created).isEqualTo(slots);
        assertThat(node.firing().firedCount()).isEqualTo(slots);
        assertThat(node.firing().duplicatesPrevented()).isZero();

        assertThat(instancesOf("unlimited"))
                .allSatisfy(r -> assertThat(r.state()).isEqualTo(RunState.READY));
        // Their creation is routine (no note): no row of the log, and each run's timeline tells it from the run.
        assertThat(events("unlimited", EventType.CREATED)).isEmpty();
        List<EventRow> created1 = instancesOf("unlimited").stream()
                .map(r ->
                        store.tx(tx -> store.events().forRun(tx, r.id(), 0, 10)).getFirst())
                .toList();
        assertThat(created1).hasSize(instancesOf("unlimited").size()).allSatisfy(e -> {
            assertThat(e.message())
                    .as("a task without a limit has nothing to say of admitting it")
                    .isNull();
            assertThat(e.id())
                    .as("routine: read from the run, no row of the log")
                    .isZero();
            assertThat(e.to()).isEqualTo(RunState.READY);
            assertThat(e.actor()).isEqualTo(node.context().schedulerActor());
            assertThat(e.nodeId()).isEqualTo("n1");
            assertThat(e.data()).containsEntry("cause", "cron").containsKey("fireKey");
        });
        assertThat(created1.stream().map(e -> e.data().get("fireKey")).distinct())
                .hasSize(created1.size());

        // SKIP with one slot: the oldest slot runs, the others are skipped as overlapping it.
        List<RunRow> skipping = instancesOf("skipping").stream()
                .sorted(Comparator.comparing(RunRow::scheduledAt))
                .toList();
        assertThat(skipping.getFirst().state()).isEqualTo(RunState.READY);
        assertThat(skipping.subList(1, skipping.size()))
                .allSatisfy(r -> assertThat(r.state()).isEqualTo(RunState.SKIPPED));
        assertThat(events("skipping", EventType.OVERLAP_SKIPPED)).hasSize(skipping.size() - 1);

        // One key for every slot: the first run does the work, the others are deduplicated against it.
        List<RunRow> keyed = instancesOf("keyed").stream()
                .sorted(Comparator.comparing(RunRow::scheduledAt))
                .toList();
        assertThat(keyed).allSatisfy(r -> assertThat(r.requestId()).isEqualTo("keyed"));
        assertThat(keyed.getFirst().state()).isEqualTo(RunState.READY);
        assertThat(keyed.subList(1, keyed.size()))
                .allSatisfy(r -> assertThat(r.state()).isEqualTo(RunState.SKIPPED));
        assertThat(events("keyed", EventType.DEDUPLICATED)).hasSize(keyed.size() - 1);
    }

    /** The runs written together are the runs the gate writes one by one: row, business date and CREATED event. */
    @Test
    void admitting_together_writes_what_admitting_one_by_one_writes() {
        node.tasks()
                .create(
                        task("unlimited", cron("0 2 * * *"), "true", Map.of("overflow", "ALLOW", "maxRetries", 2)),
                        "test");
        // Something depends on it, so its runs carry their business date.
        node.tasks()
                .create(
                        DependencyContractTest.task(
                                "after_it",
                                cron("0 3 * * *"),
                                List.of(DependencyContractTest.sameDate("unlimited")),
                                null,
                                null),
                        "test");
        ConcurrencyGate gate = new ConcurrencyGate(node.context());
        TaskRow t = taskRow("unlimited");
        assertThat(ConcurrencyGate.admitsBySlotAlone(t)).isTrue();
        long one = store.tx(tx -> gate.admit(tx, t, slot(t, "2026-11-28T02:00:00Z", "missed slot fired late")))
                .orElseThrow();
        List<Optional<Long>> together = store.tx(tx -> gate.admitAll(
                tx,
                List.of(
                        new ConcurrencyGate.Admission(t, slot(t, "2026-11-29T02:00:00Z", "missed slot fired late")),
                        new ConcurrencyGate.Admission(t, slot(t, "2026-11-28T02:00:00Z", "again")))));
        assertThat(together.get(1)).as("the slot admitted one by one").isEmpty();
        long two = together.getFirst().orElseThrow();
        RunRow a = store.tx(tx -> store.runs().find(tx, one).orElseThrow());
        RunRow b = store.tx(tx -> store.runs().find(tx, two).orElseThrow());
        assertThat(b)
                .usingRecursiveComparison()
                .ignoringFields("id", "fireKey", "scheduledAt", "readyAt", "createdAt", "updatedAt")
                .isEqualTo(a);
        assertThat(b.maxAttempts()).isEqualTo(3);
        assertThat(businessDate(two)).isEqualTo(LocalDate.parse("2026-11-29"));
        assertThat(businessDate(one)).isEqualTo(LocalDate.parse("2026-11-28"));
        EventRow ea = store.tx(tx -> store.events().forRun(tx, one, 0, 10)).getFirst();
        List<EventRow> eb = store.tx(tx -> store.events().forRun(tx, two, 0, 10));
        assertThat(eb)
                .singleElement()
                .usingRecursiveComparison()
                .ignoringFields("id", "instanceId", "at", "data")
                .isEqualTo(ea);
        assertThat(ea.message()).isEqualTo("missed slot fired late");
        assertThat(eb.getFirst().data()).isEqualTo(Map.of("cause", "cron", "fireKey", "2026-11-29T02:00:00Z"));
    }

    @Test
    void only_a_run_that_no_policy_looks_at_is_admitted_together() {
        Map<String, Map<String, Object>> gated = Map.of(
                "default", Map.of(),
                "limited", Map.of("overflow", "QUEUE", "maxConcurrency", 3),
                "approved", Map.of("overflow", "ALLOW", "approval", Map.of()),
                "keyed", Map.of("overflow", "ALLOW", "idempotencyKey", "{{taskName}}:{{date}}"));
        gated.forEach((name, policy) -> {
            node.tasks().create(task(name, cron("0 2 * * *"), "true", policy), "test");
            assertThat(ConcurrencyGate.admitsBySlotAlone(taskRow(name)))
                    .as(name)
                    .isFalse();
        });
        Map<String, Object> waits =
                new LinkedHashMap<>(task("waits", cron("0 2 * * *"), "true", Map.of("overflow", "ALLOW")));
        waits.put("dependsOn", List.of(Map.of("task", "default", "scope", "sameDate")));
        node.tasks().create(waits, "test");
        assertThat(ConcurrencyGate.admitsBySlotAlone(taskRow("waits"))).isFalse();
        node.tasks()
                .create(
                        task(
                                "sharded",
                                cron("0 2 * * *"),
                                "true",
                                Map.of("overflow", "ALLOW", "sharding", Map.of("shards", 3))),
                        "test");
        assertThat(ConcurrencyGate.admitsBySlotAlone(taskRow("sharded"))).isTrue();
        TaskRow rollingOut = taskRow("sharded");
        TaskRow canary = new TaskRow(
                rollingOut.id(),
                rollingOut.name(),
                rollingOut.version(),
                rollingOut.definition(),
                true,
                rollingOut.nextFireAt(),
                rollingOut.createdAt(),
                rollingOut.createdBy(),
                rollingOut.updatedAt(),
                rollingOut.updatedBy(),
                true,
                false);
        assertThat(ConcurrencyGate.admitsBySlotAlone(canary)).isFalse();
    }

    /** A slot that already has a run (another node, a crash mid-fire) gets no second one, in a batch written together too. */
    @Test
    void a_slot_that_already_has_a_run_is_not_fired_again_by_a_batch() {
        node.tasks().create(task("unlimited", cron("* * * * * *"), "true", Map.of("overflow", "ALLOW")), "test");
        node.tasks().create(task("queued", cron("* * * * * *"), "true", null), "test");
        List<String> names = List.of("unlimited", "queued");
        for (String name : names) {
            moveNextFireTo(name, Duration.ofSeconds(-1));
            TaskRow t = taskRow(name);
            store.tx(tx -> store.runs().create(tx, slot(t, t.nextFireAt().toString(), "fired by another node")));
        }
        node.firing().tick();
        for (String name : names) {
            List<RunRow> runs = instancesOf(name);
            assertOneInstancePerConsecutiveSecond(runs);
            assertThat(runs.stream().map(RunRow::scheduledAt).max(Instant::compareTo))
                    .contains(taskRow(name).nextFireAt().minusSeconds(1));
            RunRow taken =
                    runs.stream().min(Comparator.comparing(RunRow::scheduledAt)).orElseThrow();
            List<EventRow> takenEvents = store.tx(tx -> store.events().forRun(tx, taken.id(), 0, 10));
            assertThat(takenEvents)
                    .singleElement()
                    .satisfies(e -> assertThat(e.message()).isEqualTo("fired by another node"));
        }
        assertThat(node.firing().duplicatesPrevented()).isEqualTo(2);
        assertThat(node.firing().firedCount())
                .isEqualTo(
                        instancesOf("unlimited").size() + instancesOf("queued").size() - 2);
    }

    @Test
    void fire_all_of_an_unlimited_task_runs_every_missed_slot_and_says_each_was_late() {
        node.tasks()
                .create(
                        task("minutely", cron("* * * * *"), "true", Map.of("misfire", "FIRE_ALL", "overflow", "ALLOW")),
                        "test");
        // Ten minutes back to now there are 11 slots, and a 12th if the tick comes within the fire-ahead of the
        // minute's end.
        ClockBoundaries.awaitClearOfMinuteEnd(store, Duration.ofSeconds(10));
        moveNextFireTo("minutely", Duration.ofMinutes(-10));
        node.firing().tick();
        List<RunRow> runs = instancesOf("minutely");
        assertThat(runs).hasSize(11);
        List<EventRow> caughtUp = events("minutely", EventType.MISFIRE_CAUGHT_UP);
        // Every slot but the one inside the 60 s window was late.
        assertThat(caughtUp).hasSizeBetween(runs.size() - 1, runs.size());
        assertThat(caughtUp.stream().map(e -> ((Number) e.data().get("instanceId")).longValue()))
                .doesNotHaveDuplicates()
                .allSatisfy(id -> assertThat(runs).extracting(RunRow::id).contains(id));
        for (EventRow e : caughtUp) {
            long id = ((Number) e.data().get("instanceId")).longValue();
            EventRow made = store.tx(tx -> store.events().forRun(tx, id, 0, 10)).getFirst();
            assertThat(made.type()).isEqualTo(EventType.CREATED);
            assertThat(made.message())
                    .isEqualTo(e.message())
                    .contains("missed slot " + e.data().get("slot"));
        }
        assertThat(events("minutely", EventType.MISFIRE_SKIPPED)).isEmpty();
    }

    @Test
    void fire_once_of_an_unlimited_task_records_the_slots_it_skips() {
        node.tasks()
                .create(
                        task(
                                "minutely",
                                cron("* * * * *"),
                                "true",
                                Map.of("misfire", "FIRE_ONCE", "overflow", "ALLOW")),
                        "test");
        moveNextFireTo("minutely", Duration.ofMinutes(-10));
        node.firing().tick();
        // The latest missed slot, perhaps the current one, and the next one too when it is less than fireAhead away.
        assertThat(instancesOf("minutely")).hasSizeBetween(1, 3);
        assertThat(events("minutely", EventType.MISFIRE_SKIPPED)).hasSizeBetween(8, 10);
        assertThat(events("minutely", EventType.MISFIRE_CAUGHT_UP)).hasSize(1);
        assertThat(taskRow("minutely").nextFireAt()).isAfter(dbNow().minusSeconds(1));
    }

    NewRun slot(TaskRow t, String fireKey, String message) {
        return new NewRun(
                t.id(),
                t.name(),
                t.version(),
                Cause.CRON,
                fireKey,
                Instant.parse(fireKey),
                Map.of(),
                RunState.READY,
                t.definition().policy().maxAttempts(),
                t.definition().group(),
                node.context().schedulerActor(),
                "n1",
                null,
                null,
                message);
    }

    /** Both ways of admitting leave the business date out when nothing depends on the task (the index of dates holds only those asked for). */
    @Test
    void a_run_of_a_task_that_nothing_depends_on_has_no_business_date() {
        node.tasks().create(task("alone", cron("0 2 * * *"), "true", Map.of("overflow", "ALLOW")), "test");
        ConcurrencyGate gate = new ConcurrencyGate(node.context());
        TaskRow t = taskRow("alone");
        assertThat(t.hasDependents()).isFalse();
        long one = store.tx(tx -> gate.admit(tx, t, slot(t, "2026-11-28T02:00:00Z", "one")))
                .orElseThrow();
        long two = store.tx(tx -> gate.admitAll(
                        tx, List.of(new ConcurrencyGate.Admission(t, slot(t, "2026-11-29T02:00:00Z", "two")))))
                .getFirst()
                .orElseThrow();
        assertThat(businessDate(one)).isNull();
        assertThat(businessDate(two)).isNull();
    }

    /** The stored business date of a run; null when it has none. */
    LocalDate businessDate(long id) {
        return store.tx(tx -> tx.query(
                        "SELECT business_date FROM ax_instance WHERE id = ?",
                        r -> r.str("business_date") == null
                                ? null
                                : LocalDate.parse(r.str("business_date").substring(0, 10)),
                        id))
                .getFirst();
    }

    static void assertOneInstancePerConsecutiveSecond(List<RunRow> runs) {
        assertThat(runs).isNotEmpty();
        List<Instant> slots = runs.stream().map(RunRow::scheduledAt).sorted().toList();
        assertThat(slots).doesNotHaveDuplicates();
        assertThat(runs.stream().map(RunRow::fireKey).toList()).doesNotHaveDuplicates();
        Instant first = slots.getFirst();
        Instant last = slots.getLast();
        assertThat(slots).hasSize((int) ChronoUnit.SECONDS.between(first, last) + 1);
    }

    List<RunRow> instancesOf(String task) {
        return store.tx(tx -> store.runs().list(tx, new RunFilter(task, null, null, null), Long.MAX_VALUE, 10_000));
    }

    List<EventRow> events(String task, EventType type) {
        long id = taskRow(task).id();
        return store.tx(tx -> store.events().ofType(tx, id, type));
    }

    TaskRow taskRow(String name) {
        return store.tx(tx -> store.tasks().find(tx, name).orElseThrow());
    }

    Instant dbNow() {
        return store.tx(tx -> tx.now());
    }

    /** Pretends the node was down: the task's next slot is put in the past, aligned to the schedule. */
    void moveNextFireTo(String name, Duration fromNow) {
        TaskRow t = taskRow(name);
        Instant target = dbNow().plus(fromNow);
        // The latest slot at or before the target: where next_fire_at would stand after downtime.
        var schedule = Schedules.of(t.definition().trigger());
        Instant slot = schedule.nextAfter(target.minus(Duration.ofDays(2))).orElseThrow();
        for (Instant next = schedule.nextAfter(slot).orElseThrow();
                !next.isAfter(target);
                next = schedule.nextAfter(next).orElseThrow()) {
            slot = next;
        }
        Instant due = slot;
        store.tx(tx -> tx.update("UPDATE ax_task SET next_fire_at = ? WHERE id = ?", due, t.id()));
    }
}
