package dev.ax.scheduler;

import static dev.ax.scheduler.TestNodes.cron;
import static dev.ax.scheduler.TestNodes.task;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ax.domain.run.EventType;
import dev.ax.store.EventRow;
import dev.ax.store.InstanceRow;
import dev.ax.store.InstanceStore.InstanceFilter;
import dev.ax.store.Store;
import dev.ax.store.TaskRow;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Invariants 1–3 on each database: one instance per slot, database time, nothing missed silently. */
abstract class FiringContractTest {
    Store store;
    SchedulerNode node;

    abstract boolean postgres();

    @BeforeEach
    void open() {
        store = Store.open(TestNodes.fresh(postgres()));
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
        moveNextFireTo("daily_sync", Duration.ofSeconds(-1));
        try (var executor = new TestNodes.FastExecutor(node.dispatcher(), "fast")) {
            assertThat(node.firing().tick()).isEqualTo(1);
            await().atMost(Duration.ofSeconds(10)).until(() -> executor.completed() == 1);
            for (int i = 0; i < 20; i++) {
                node.firing().tick();
            }
            assertThat(instancesOf("daily_sync")).hasSize(1).allSatisfy(r -> assertThat(r.state().isSuccessful()).isTrue());
            assertThat(executor.errors()).isZero();
        }
        TaskRow t = taskRow("daily_sync");
        assertThat(t.nextFireAt()).isAfter(Instant.now().plus(Duration.ofHours(1)).minus(Duration.ofDays(1)));
    }

    @Test
    void every_second_task_gets_one_instance_per_slot_and_no_gaps() throws Exception {
        node.tasks().create(task("tick", cron("* * * * * *"), "true", null), "test");
        node.start();
        try (var executor = new TestNodes.FastExecutor(node.dispatcher(), "fast")) {
            await().atMost(Duration.ofSeconds(15)).until(() -> executor.completed() >= 4);
        }
        node.close();
        List<InstanceRow> runs = instancesOf("tick");
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
        var slot = new dev.ax.store.NewInstance(t.id(), t.name(), t.version(), dev.ax.domain.run.Cause.CRON, "2026-11-29T02:00:00Z",
                Instant.parse("2026-11-29T02:00:00Z"), Map.of(), dev.ax.domain.run.InstanceState.READY, 1, "default", "test", "n1",
                null, null, null);
        java.util.Optional<Long> first = store.tx(tx -> store.instances().create(tx, slot));
        java.util.Optional<Long> second = store.tx(tx -> store.instances().create(tx, slot));
        assertThat(first).isPresent();
        assertThat(second).isEmpty();
        assertThat(instancesOf("daily")).hasSize(1);
    }

    @Test
    void fire_once_runs_the_latest_missed_slot_and_records_the_others() {
        node.tasks().create(task("minutely", cron("* * * * *"), "true", Map.of("misfire", "FIRE_ONCE")), "test");
        moveNextFireTo("minutely", Duration.ofMinutes(-10));
        node.firing().tick();
        List<InstanceRow> runs = instancesOf("minutely");
        // Ten minutes back there are 10 or 11 slots; the one inside the 60 s window is on time.
        assertThat(runs).hasSizeBetween(1, 2);
        List<EventRow> skipped = events("minutely", EventType.MISFIRE_SKIPPED);
        assertThat(skipped).hasSizeBetween(8, 10);
        assertThat(events("minutely", EventType.MISFIRE_CAUGHT_UP)).hasSize(1);
    }

    @Test
    void skip_runs_no_missed_slot_and_leaves_an_event_for_each() {
        node.tasks().create(task("minutely", cron("* * * * *"), "true", Map.of("misfire", "SKIP")), "test");
        moveNextFireTo("minutely", Duration.ofMinutes(-10));
        node.firing().tick();
        long late = instancesOf("minutely").stream().filter(r -> r.scheduledAt().isBefore(dbNow().minusSeconds(60))).count();
        assertThat(late).isZero();
        assertThat(events("minutely", EventType.MISFIRE_SKIPPED)).hasSizeBetween(9, 11);
    }

    @Test
    void fire_all_runs_every_missed_slot_oldest_first() {
        node.tasks().create(task("minutely", cron("* * * * *"), "true", Map.of("misfire", "FIRE_ALL")), "test");
        moveNextFireTo("minutely", Duration.ofMinutes(-10));
        node.firing().tick();
        List<InstanceRow> runs = instancesOf("minutely");
        assertThat(runs).hasSizeBetween(10, 11);
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
        node.firing().tick();
        assertThat(instancesOf("minutely").stream().filter(r -> r.scheduledAt().isBefore(dbNow().minusSeconds(60)))).isEmpty();
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

    static void assertOneInstancePerConsecutiveSecond(List<InstanceRow> runs) {
        assertThat(runs).isNotEmpty();
        List<Instant> slots = runs.stream().map(InstanceRow::scheduledAt).sorted().toList();
        assertThat(slots).doesNotHaveDuplicates();
        assertThat(runs.stream().map(InstanceRow::fireKey).toList()).doesNotHaveDuplicates();
        Instant first = slots.getFirst();
        Instant last = slots.getLast();
        assertThat(slots).hasSize((int) ChronoUnit.SECONDS.between(first, last) + 1);
    }

    List<InstanceRow> instancesOf(String task) {
        return store.tx(tx -> store.instances().list(tx, new InstanceFilter(task, null, null, null), Long.MAX_VALUE, 10_000));
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
        var schedule = dev.ax.domain.schedule.Schedules.of(t.definition().trigger());
        Instant slot = schedule.nextAfter(target.minus(Duration.ofDays(2))).orElseThrow();
        for (Instant next = schedule.nextAfter(slot).orElseThrow(); !next.isAfter(target); next = schedule.nextAfter(next).orElseThrow()) {
            slot = next;
        }
        Instant due = slot;
        store.tx(tx -> tx.update("UPDATE ax_task SET next_fire_at = ? WHERE id = ?", due, t.id()));
    }
}
