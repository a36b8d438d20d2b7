package dev.ax.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ax.domain.protocol.RunRef;
import dev.ax.domain.run.Cause;
import dev.ax.domain.run.EventType;
import dev.ax.domain.run.IllegalTransitionException;
import dev.ax.domain.run.InstanceState;
import dev.ax.domain.task.TaskDefinition;
import dev.ax.domain.task.TaskDefinitionCodec;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The store's promises, the same on every database (H2 and PostgreSQL subclasses). */
abstract class StoreContractTest {
    Store store;
    TaskRow task;

    abstract DbConfig config();

    @BeforeEach
    void open() {
        store = Store.open(config());
        TaskDefinition def = TaskDefinitionCodec.parse(Map.of("taskName", "t", "trigger", Map.of("type", "event"),
                "action", Map.of("type", "shell", "command", "true")), Set.of()).definition();
        task = store.tx(tx -> store.tasks().insert(tx, def, null, "test"));
    }

    @AfterEach
    void close() {
        store.close();
    }

    long newInstance(String fireKey) {
        return store.tx(tx -> store.instances().create(tx, new NewInstance(task.id(), "t", 1, Cause.EVENT, fireKey,
                Instant.parse("2026-11-29T02:00:00Z"), Map.of("x", 1), InstanceState.READY, 1, "default", "test", "n1",
                null, null, null))).orElseThrow();
    }

    InstanceRow row(long id) {
        return store.tx(tx -> store.instances().find(tx, id).orElseThrow());
    }

    @Test
    void a_move_applies_only_from_the_state_the_caller_saw() {
        long id = newInstance("k1");
        boolean first = store.tx(tx -> store.instances().move(tx, Move.of(id, InstanceState.READY, InstanceState.CANCELED)
                .finished().event(EventType.CANCELED, "op", "n1", "by hand")));
        boolean second = store.tx(tx -> store.instances().move(tx, Move.of(id, InstanceState.READY, InstanceState.SKIPPED)
                .event(EventType.SKIPPED, "op", "n1", "too late")));
        assertThat(first).isTrue();
        assertThat(second).isFalse();
        assertThat(row(id).state()).isEqualTo(InstanceState.CANCELED);
        assertThat(row(id).finishedAt()).isNotNull();
        List<EventRow> events = store.tx(tx -> store.events().forInstance(tx, id, 0, 10));
        assertThat(events).extracting(EventRow::type).containsExactly(EventType.CREATED, EventType.CANCELED);
    }

    @Test
    void a_move_outside_the_transition_table_is_refused_before_any_write() {
        long id = newInstance("k1");
        assertThatThrownBy(() -> store.tx(tx -> store.instances().move(tx, Move.of(id, InstanceState.READY, InstanceState.SUCCESS))))
                .isInstanceOf(IllegalTransitionException.class);
        assertThat(row(id).state()).isEqualTo(InstanceState.READY);
    }

    @Test
    void a_state_change_and_its_event_commit_or_roll_back_together() {
        long id = newInstance("k1");
        assertThatThrownBy(() -> store.tx(tx -> {
            store.instances().move(tx, Move.of(id, InstanceState.READY, InstanceState.CANCELED).event(EventType.CANCELED, "op", "n1", null));
            throw new IllegalStateException("crash after the write");
        })).isInstanceOf(IllegalStateException.class);
        assertThat(row(id).state()).isEqualTo(InstanceState.READY);
        List<EventRow> events = store.tx(tx -> store.events().forInstance(tx, id, 0, 10));
        assertThat(events).extracting(EventRow::type).containsExactly(EventType.CREATED);
    }

    @Test
    void one_instance_per_task_and_fire_key() {
        newInstance("2026-11-29T02:00:00Z");
        Optional<Long> again = store.tx(tx -> store.instances().create(tx, new NewInstance(task.id(), "t", 1, Cause.CRON,
                "2026-11-29T02:00:00Z", Instant.parse("2026-11-29T02:00:00Z"), Map.of(), InstanceState.READY, 1, "default",
                "other-node", "n2", null, null, null)));
        assertThat(again).isEmpty();
    }

    @Test
    void a_claim_takes_due_ready_runs_of_the_groups_and_fences_reports() {
        long id = newInstance("k1");
        List<InstanceRow> claimed = store.tx(tx -> store.instances().claim(tx, "e1", List.of("default"), 10, 30_000, "n1"));
        assertThat(claimed).singleElement().satisfies(r -> {
            assertThat(r.id()).isEqualTo(id);
            assertThat(r.state()).isEqualTo(InstanceState.RUNNING);
            assertThat(r.attempt()).isEqualTo(1);
            assertThat(r.executorId()).isEqualTo("e1");
            assertThat(r.leaseExpiresAt()).isAfter(r.startedAt());
            assertThat(r.params()).containsEntry("x", 1);
        });
        List<InstanceRow> none = store.tx(tx -> store.instances().claim(tx, "e2", List.of("default"), 10, 30_000, "n1"));
        assertThat(none).isEmpty();
        boolean holds = store.tx(tx -> store.instances().holds(tx, new RunRef(id, 1), "e1"));
        boolean stranger = store.tx(tx -> store.instances().holds(tx, new RunRef(id, 1), "e2"));
        boolean stale = store.tx(tx -> store.instances().holds(tx, new RunRef(id, 0), "e1"));
        assertThat(holds).isTrue();
        assertThat(stranger).isFalse();
        assertThat(stale).isFalse();
    }

    @Test
    void many_successes_move_like_single_moves_fenced_each_with_its_event() {
        long a = newInstance("a");
        long b = newInstance("b");
        long c = newInstance("c");
        long d = newInstance("d");
        store.tx(tx -> store.instances().claim(tx, "e1", List.of("default"), 10, 30_000, "n1"));
        // d is not RUNNING any more when the successes arrive: a lost race, left out like a move that finds no row.
        store.tx(tx -> store.instances().move(tx, Move.of(d, InstanceState.RUNNING, InstanceState.TERMINATED).finished()
                .event(EventType.TERMINATED, "op", "n1", "by hand")));
        Set<Long> moved = store.tx(tx -> store.instances().succeedAll(tx, List.of(
                new InstanceStore.Success(c, 1, "e1", 0, null, "executor:e1", "exit 0"),
                new InstanceStore.Success(a, 1, "e1", 3, "done, 3 rows", "executor:e1", "done, 3 rows"),
                new InstanceStore.Success(b, 2, "e1", 0, null, "executor:e1", "exit 0"),        // a stale attempt: fenced out
                new InstanceStore.Success(d, 1, "e1", 0, null, "executor:e1", "exit 0")), "n1"));
        assertThat(moved).containsExactlyInAnyOrder(a, c);
        assertThat(row(a)).satisfies(r -> {
            assertThat(r.state()).isEqualTo(InstanceState.SUCCESS);
            assertThat(r.exitCode()).isEqualTo(3);
            assertThat(r.message()).isEqualTo("done, 3 rows");
            assertThat(r.finishedAt()).isNotNull();
            assertThat(r.leaseExpiresAt()).isNull();
        });
        assertThat(row(b).state()).isEqualTo(InstanceState.RUNNING);
        assertThat(row(d).state()).isEqualTo(InstanceState.TERMINATED);
        List<EventRow> events = store.tx(tx -> store.events().forInstance(tx, a, 0, 10));
        assertThat(events).extracting(EventRow::type).containsExactly(EventType.CREATED, EventType.CLAIMED, EventType.SUCCEEDED);
        assertThat(events.getLast()).satisfies(e -> {
            assertThat(e.from()).isEqualTo(InstanceState.RUNNING);
            assertThat(e.to()).isEqualTo(InstanceState.SUCCESS);
            assertThat(e.attempt()).isEqualTo(1);
            assertThat(e.actor()).isEqualTo("executor:e1");
            assertThat(e.nodeId()).isEqualTo("n1");
            assertThat(e.message()).isEqualTo("done, 3 rows");
            assertThat(e.taskName()).isEqualTo("t");
        });
        List<EventRow> ofStale = store.tx(tx -> store.events().forInstance(tx, b, 0, 10));
        List<EventRow> ofTerminated = store.tx(tx -> store.events().forInstance(tx, d, 0, 10));
        assertThat(ofStale).extracting(EventRow::type).doesNotContain(EventType.SUCCEEDED);
        assertThat(ofTerminated).extracting(EventRow::type).doesNotContain(EventType.SUCCEEDED);
    }

    @Test
    void many_starts_record_each_pid_with_its_event_fenced_like_one() {
        long a = newInstance("a");
        long b = newInstance("b");
        store.tx(tx -> store.instances().claim(tx, "e1", List.of("default"), 10, 30_000, "n1"));
        Set<Long> recorded = store.tx(tx -> store.instances().recordStartedAll(tx, List.of(
                new InstanceStore.Start(new RunRef(b, 1), "e1", 42, "executor:e1"),
                new InstanceStore.Start(new RunRef(a, 1), "e2", 43, "executor:e2")), "n1"));   // e2 does not hold a
        assertThat(recorded).containsExactly(b);
        assertThat(row(b).pid()).isEqualTo(42L);
        assertThat(row(a).pid()).isNull();
        List<EventRow> events = store.tx(tx -> store.events().forInstance(tx, b, 0, 10));
        assertThat(events.getLast()).satisfies(e -> {
            assertThat(e.type()).isEqualTo(EventType.STARTED);
            assertThat(e.actor()).isEqualTo("executor:e1");
            assertThat(e.message()).isEqualTo("pid 42 on executor e1");
            assertThat(e.data()).containsEntry("executor", "e1").containsKey("pid");
        });
        List<EventRow> ofA = store.tx(tx -> store.events().forInstance(tx, a, 0, 10));
        assertThat(ofA).extracting(EventRow::type).doesNotContain(EventType.STARTED);
    }

    @Test
    void other_groups_do_not_see_the_run() {
        newInstance("k1");
        List<InstanceRow> claimed = store.tx(tx -> store.instances().claim(tx, "e1", List.of("gpu"), 10, 30_000, "n1"));
        assertThat(claimed).isEmpty();
    }

    @Test
    void timestamps_round_trip_whatever_the_session_zone() {
        long id = newInstance("k1");
        assertThat(row(id).scheduledAt()).isEqualTo(Instant.parse("2026-11-29T02:00:00Z"));
    }

    @Test
    void the_schema_guard_refuses_a_schema_without_the_slot_index() {
        store.tx(tx -> tx.update("ALTER TABLE ax_instance DROP CONSTRAINT ax_instance_slot_uq"));
        assertThatThrownBy(() -> SchemaGuard.check(store.db()))
                .isInstanceOf(StoreException.class)
                .hasMessageContaining("ax_instance").hasMessageContaining("refusing to start");
    }

    @Test
    void task_versions_keep_actor_and_diff() {
        List<TaskVersionRow> versions = store.tx(tx -> store.tasks().versions(tx, "t", 10));
        assertThat(versions).singleElement().satisfies(v -> {
            assertThat(v.change()).isEqualTo("CREATE");
            assertThat(v.actor()).isEqualTo("test");
            assertThat(v.diff()).isNotEmpty();
        });
    }
}
