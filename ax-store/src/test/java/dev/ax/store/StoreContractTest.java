package dev.ax.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import dev.ax.domain.protocol.RunRef;
import dev.ax.domain.run.BackfillState;
import dev.ax.domain.run.Cause;
import dev.ax.domain.run.EventType;
import dev.ax.domain.run.RunState;
import dev.ax.domain.state.IllegalTransitionException;
import dev.ax.domain.task.TaskDefinition;
import dev.ax.domain.task.TaskDefinitionCodec;
import java.time.Instant;
import java.time.LocalDate;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
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
        TaskDefinition def = TaskDefinitionCodec.parse(
                        Map.of(
                                "taskName",
                                "t",
                                "trigger",
                                Map.of("type", "event"),
                                "action",
                                Map.of("type", "shell", "command", "true")),
                        Set.of())
                .definition();
        task = store.tx(tx -> store.tasks().insert(tx, def, null, "test"));
    }

    @AfterEach
    void close() {
        store.close();
    }

    long newInstance(String fireKey) {
        return store.tx(tx -> store.runs()
                        .create(
                                tx,
                                new NewRun(
                                        task.id(),
                                        "t",
                                        1,
                                        Cause.EVENT,
                                        fireKey,
                                        Instant.parse("2026-11-29T02:00:00Z"),
                                        Map.of("x", 1),
                                        RunState.READY,
                                        1,
                                        "default",
                                        "test",
                                        "n1",
                                        null,
                                        null,
                                        null)))
                .orElseThrow();
    }

    /** An operator ends a RUNNING run: reports about it that arrive later lost the race. */
    void terminateByHand(long id) {
        store.tx(tx -> store.runs()
                .move(
                        tx,
                        Move.of(id, RunState.RUNNING, RunState.TERMINATED)
                                .finished()
                                .event(EventType.TERMINATED, "op", "n1", "by hand")));
    }

    RunRow row(long id) {
        return store.tx(tx -> store.runs().find(tx, id).orElseThrow());
    }

    @Test
    void a_move_applies_only_from_the_state_the_caller_saw() {
        long id = newInstance("k1");
        boolean first = store.tx(tx -> store.runs()
                .move(
                        tx,
                        Move.of(id, RunState.READY, RunState.CANCELED)
                                .finished()
                                .event(EventType.CANCELED, "op", "n1", "by hand")));
        boolean second = store.tx(tx -> store.runs()
                .move(
                        tx,
                        Move.of(id, RunState.READY, RunState.SKIPPED)
                                .event(EventType.SKIPPED, "op", "n1", "too late")));
        assertThat(first).isTrue();
        assertThat(second).isFalse();
        assertThat(row(id).state()).isEqualTo(RunState.CANCELED);
        assertThat(row(id).finishedAt()).isNotNull();
        List<EventRow> events = store.tx(tx -> store.events().forRun(tx, id, 0, 10));
        assertThat(events).extracting(EventRow::type).containsExactly(EventType.CREATED, EventType.CANCELED);
    }

    @Test
    void a_move_outside_the_transition_table_is_refused_before_any_write() {
        long id = newInstance("k1");
        assertThatThrownBy(() -> store.tx(tx -> store.runs().move(tx, Move.of(id, RunState.READY, RunState.SUCCESS))))
                .isInstanceOf(IllegalTransitionException.class);
        assertThat(row(id).state()).isEqualTo(RunState.READY);
    }

    @Test
    void a_version_written_by_a_rolled_back_transaction_is_never_served_for_the_version_written_next() {
        TaskDefinition first = draft("echo first");
        TaskDefinition second = draft("echo second");
        assertThatThrownBy(() -> store.tx(tx -> {
                    int v = store.tasks().appendDraft(tx, task.id(), first, "test");
                    assertThat(store.tasks().definition(tx, task.id(), v)).isEqualTo(first);
                    throw new IllegalStateException("crash after the write");
                }))
                .isInstanceOf(IllegalStateException.class);
        int version = store.tx(tx -> store.tasks().appendDraft(tx, task.id(), second, "test"));
        assertThat(version).isEqualTo(-1); // the number the rolled-back draft had taken
        TaskDefinition served = store.tx(tx -> store.tasks().definition(tx, task.id(), version));
        assertThat(served).isEqualTo(second);
        // An edit: the row read after it, and the version read by number, both give the new text.
        TaskDefinition edited = draft("echo edited");
        TaskRow row = store.tx(tx ->
                store.tasks().update(tx, store.tasks().lockById(tx, task.id()).orElseThrow(), edited, null, "test"));
        assertThat(store.tx(tx -> store.tasks().findById(tx, task.id()))
                        .orElseThrow()
                        .definition())
                .isEqualTo(edited);
        TaskDefinition byVersion = store.tx(tx -> store.tasks().definition(tx, task.id(), row.version()));
        assertThat(byVersion).isEqualTo(edited);
    }

    private static TaskDefinition draft(String command) {
        return TaskDefinitionCodec.parse(
                        Map.of(
                                "taskName",
                                "t",
                                "trigger",
                                Map.of("type", "event"),
                                "action",
                                Map.of("type", "shell", "command", command)),
                        Set.of())
                .definition();
    }

    @Test
    void a_backfill_that_is_done_is_never_moved_again_and_the_refusal_changes_nothing() {
        long id = store.tx(tx -> store.backfills()
                .insert(
                        tx,
                        task.id(),
                        "t",
                        Instant.parse("2026-11-01T00:00:00Z"),
                        Instant.parse("2026-11-02T00:00:00Z"),
                        1,
                        "skip",
                        false,
                        Map.of(),
                        1,
                        "test"));
        boolean done = store.tx(tx -> store.backfills().setState(tx, id, BackfillState.RUNNING, BackfillState.DONE));
        assertThat(done).isTrue();
        assertThatThrownBy(() ->
                        store.tx(tx -> store.backfills().setState(tx, id, BackfillState.DONE, BackfillState.RUNNING)))
                .isInstanceOf(IllegalTransitionException.class)
                .hasMessage("a backfill cannot move from DONE to RUNNING");
        assertThat(store.tx(tx -> store.backfills().find(tx, id)).orElseThrow().state())
                .isEqualTo(BackfillState.DONE);
    }

    @Test
    void a_state_change_and_its_event_commit_or_roll_back_together() {
        long id = newInstance("k1");
        assertThatThrownBy(() -> store.tx(tx -> {
                    store.runs()
                            .move(
                                    tx,
                                    Move.of(id, RunState.READY, RunState.CANCELED)
                                            .event(EventType.CANCELED, "op", "n1", null));
                    throw new IllegalStateException("crash after the write");
                }))
                .isInstanceOf(IllegalStateException.class);
        assertThat(row(id).state()).isEqualTo(RunState.READY);
        List<EventRow> events = store.tx(tx -> store.events().forRun(tx, id, 0, 10));
        assertThat(events).extracting(EventRow::type).containsExactly(EventType.CREATED);
    }

    @Test
    void one_instance_per_task_and_fire_key() {
        newInstance("2026-11-29T02:00:00Z");
        Optional<Long> again = store.tx(tx -> store.runs()
                .create(
                        tx,
                        new NewRun(
                                task.id(),
                                "t",
                                1,
                                Cause.CRON,
                                "2026-11-29T02:00:00Z",
                                Instant.parse("2026-11-29T02:00:00Z"),
                                Map.of(),
                                RunState.READY,
                                1,
                                "default",
                                "other-node",
                                "n2",
                                null,
                                null,
                                null)));
        assertThat(again).isEmpty();
    }

    NewRun slot(String fireKey, RunState state, String message) {
        return new NewRun(
                task.id(),
                "t",
                1,
                Cause.CRON,
                fireKey,
                Instant.parse(fireKey),
                Map.of("x", 1),
                state,
                3,
                "default",
                "scheduler",
                "n1",
                null,
                null,
                message,
                LocalDate.parse(fireKey.substring(0, 10)));
    }

    List<EventRow> eventsOf(long id) {
        return store.tx(tx -> store.events().forRun(tx, id, 0, 10));
    }

    LocalDate businessDate(long id) {
        return store.tx(tx -> tx.queryOne(
                        "SELECT business_date FROM ax_instance WHERE id = ?",
                        r -> r.str("business_date") == null ? null : LocalDate.parse(r.str("business_date")),
                        id))
                .orElseThrow();
    }

    @Test
    void create_all_writes_the_rows_and_created_events_that_create_writes_one_by_one() {
        long alone = store.tx(tx -> store.runs().create(tx, slot("2026-11-28T02:00:00Z", RunState.READY, "on time")))
                .orElseThrow();
        List<Optional<Long>> ids = store.tx(tx -> store.runBatches()
                .createAll(
                        tx,
                        List.of(
                                slot("2026-11-29T02:00:00Z", RunState.READY, "on time"),
                                slot(
                                        "2026-11-30T02:00:00Z",
                                        RunState.READY,
                                        "missed slot 2026-11-30T02:00:00Z fired 5s late"),
                                slot("2026-12-01T02:00:00Z", RunState.SKIPPED, null))));
        assertThat(ids).allSatisfy(id -> assertThat(id).isPresent());
        long together = ids.get(0).orElseThrow();
        assertThat(row(together))
                .usingRecursiveComparison()
                .ignoringFields("id", "fireKey", "scheduledAt", "readyAt", "createdAt", "updatedAt")
                .isEqualTo(row(alone));
        assertThat(row(together).readyAt()).isEqualTo(Instant.parse("2026-11-29T02:00:00Z"));
        assertThat(businessDate(together)).isEqualTo(LocalDate.parse("2026-11-29"));
        assertThat(eventsOf(together))
                .singleElement()
                .usingRecursiveComparison()
                .ignoringFields("id", "instanceId", "at", "data")
                .isEqualTo(eventsOf(alone).getFirst());
        assertThat(eventsOf(together).getFirst().data())
                .isEqualTo(Map.of("cause", "cron", "fireKey", "2026-11-29T02:00:00Z"));
        // Each run's own message and fire key, not the first one's.
        long late = ids.get(1).orElseThrow();
        assertThat(eventsOf(late)).singleElement().satisfies(e -> {
            assertThat(e.message()).isEqualTo("missed slot 2026-11-30T02:00:00Z fired 5s late");
            assertThat(e.data()).containsEntry("fireKey", "2026-11-30T02:00:00Z");
            assertThat(e.instanceId()).isEqualTo(late);
        });
        long skipped = ids.get(2).orElseThrow();
        assertThat(row(skipped).state()).isEqualTo(RunState.SKIPPED);
        assertThat(row(skipped).finishedAt()).isNotNull();
        assertThat(row(together).finishedAt()).isNull();
        assertThat(eventsOf(skipped)).singleElement().satisfies(e -> {
            assertThat(e.to()).isEqualTo(RunState.SKIPPED);
            assertThat(e.message()).isNull();
        });
    }

    @Test
    void create_all_creates_nothing_for_a_taken_slot_and_the_rest_around_it() {
        long taken = store.tx(tx -> store.runs().create(tx, slot("2026-11-29T02:00:00Z", RunState.READY, "first")))
                .orElseThrow();
        List<Optional<Long>> ids = store.tx(tx -> store.runBatches()
                .createAll(
                        tx,
                        List.of(
                                slot("2026-11-28T02:00:00Z", RunState.READY, "new before"),
                                slot("2026-11-29T02:00:00Z", RunState.READY, "second"),
                                slot("2026-11-30T02:00:00Z", RunState.READY, "new after"),
                                slot("2026-11-30T02:00:00Z", RunState.READY, "same slot again"))));
        assertThat(ids.get(1)).isEmpty();
        assertThat(ids.get(3)).as("a slot an earlier entry took").isEmpty();
        assertThat(eventsOf(taken))
                .singleElement()
                .satisfies(e -> assertThat(e.message()).isEqualTo("first"));
        assertThat(eventsOf(ids.get(0).orElseThrow()))
                .singleElement()
                .satisfies(e -> assertThat(e.message()).isEqualTo("new before"));
        assertThat(eventsOf(ids.get(2).orElseThrow()))
                .singleElement()
                .satisfies(e -> assertThat(e.message()).isEqualTo("new after"));
        List<RunRow> all = store.tx(tx -> store.runs().list(tx, RunStore.RunFilter.ALL, Long.MAX_VALUE, 10));
        assertThat(all)
                .extracting(RunRow::fireKey)
                .containsExactlyInAnyOrder("2026-11-28T02:00:00Z", "2026-11-29T02:00:00Z", "2026-11-30T02:00:00Z");
        long events = store.tx(tx -> tx.queryOne(
                        "SELECT COUNT(*) AS n FROM ax_event WHERE type = 'CREATED'", r -> r.lng("n"), new Object[0]))
                .orElseThrow();
        assertThat(events).isEqualTo(3);
        List<Optional<Long>> none = store.tx(tx -> store.runBatches().createAll(tx, List.of()));
        assertThat(none).isEmpty();
    }

    @Test
    void create_all_takes_more_runs_than_one_statement_holds() {
        int n = RunBatches.CREATE_CHUNK + 3;
        Instant first = Instant.parse("2026-11-29T00:00:00Z");
        List<NewRun> runs = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            runs.add(slot(first.plusSeconds(i).toString(), RunState.READY, "run " + i));
        }
        List<Optional<Long>> ids = store.tx(tx -> store.runBatches().createAll(tx, runs));
        assertThat(ids).hasSize(n).allSatisfy(id -> assertThat(id).isPresent());
        assertThat(ids.stream().map(Optional::orElseThrow).distinct()).hasSize(n);
        long last = ids.getLast().orElseThrow();
        assertThat(row(last).fireKey()).isEqualTo(first.plusSeconds(n - 1).toString());
        assertThat(eventsOf(last))
                .singleElement()
                .satisfies(e -> assertThat(e.message()).isEqualTo("run " + (n - 1)));
    }

    @Test
    void advance_all_moves_every_task_whose_version_is_unchanged_and_names_the_others() {
        TaskDefinition def = TaskDefinitionCodec.parse(
                        Map.of(
                                "taskName",
                                "u",
                                "trigger",
                                Map.of("type", "event"),
                                "action",
                                Map.of("type", "shell", "command", "true")),
                        Set.of())
                .definition();
        TaskRow other = store.tx(tx -> store.tasks().insert(tx, def, null, "test"));
        TaskDefinition endingDef = TaskDefinitionCodec.parse(
                        Map.of(
                                "taskName",
                                "w",
                                "trigger",
                                Map.of("type", "event"),
                                "action",
                                Map.of("type", "shell", "command", "true")),
                        Set.of())
                .definition();
        TaskRow ending = store.tx(tx -> store.tasks().insert(tx, endingDef, null, "test"));
        Instant next = Instant.parse("2026-11-29T02:00:00.250Z");
        setNext(ending.id(), next, false);
        List<TaskStore.Advance> stale = store.tx(tx -> store.tasks()
                .advanceAll(
                        tx,
                        List.of(
                                new TaskStore.Advance(task.id(), task.version(), next),
                                new TaskStore.Advance(other.id(), other.version() + 1, next),
                                new TaskStore.Advance(ending.id(), ending.version(), null))));
        assertThat(stale).extracting(TaskStore.Advance::id).containsExactly(other.id());
        assertThat(store.tx(tx -> store.tasks().findById(tx, task.id()))
                        .orElseThrow()
                        .nextFireAt())
                .isEqualTo(next);
        assertThat(store.tx(tx -> store.tasks().findById(tx, other.id()))
                        .orElseThrow()
                        .nextFireAt())
                .isNull();
        assertThat(store.tx(tx -> store.tasks().findById(tx, ending.id()))
                        .orElseThrow()
                        .nextFireAt())
                .as("no slot any more")
                .isNull();
    }

    @Test
    void the_firing_loop_wakes_at_the_earliest_slot_or_earlier_for_a_task_that_fires_ahead() {
        long ahead = 500;
        Optional<Instant> none = store.tx(tx -> store.tasks().earliestNextFire(tx, ahead));
        assertThat(none).as("no task has a next slot").isEmpty();
        TaskDefinition def = TaskDefinitionCodec.parse(
                        Map.of(
                                "taskName",
                                "u",
                                "trigger",
                                Map.of("type", "event"),
                                "action",
                                Map.of("type", "shell", "command", "true")),
                        Set.of())
                .definition();
        long other = store.tx(tx -> store.tasks().insert(tx, def, null, "test")).id();
        Instant t = Instant.parse("2026-11-29T02:00:00Z");
        setNext(task.id(), t, false);

        setNext(other, t.plusMillis(300), true);
        assertThat(wakeUp(ahead))
                .as("fires ahead, due within the lead of the earliest")
                .isEqualTo(t.minusMillis(200));
        assertThat(wakeUp(0)).as("no lead").isEqualTo(t);
        setNext(other, t.plusMillis(600), true);
        assertThat(wakeUp(ahead))
                .as("fires ahead, due after the earliest's slot less the lead")
                .isEqualTo(t);
        setNext(other, t, true);
        assertThat(wakeUp(ahead)).as("a tie").isEqualTo(t.minusMillis(ahead));
        setNext(other, t.minusMillis(100), true);
        assertThat(wakeUp(ahead)).as("fires ahead and is the earliest").isEqualTo(t.minusMillis(600));
        store.tx(tx -> tx.update("UPDATE ax_task SET enabled = FALSE WHERE id = ?", other));
        assertThat(wakeUp(ahead)).as("a disabled task never wakes the loop").isEqualTo(t);
        setNext(task.id(), t, true);
        assertThat(wakeUp(ahead)).as("only a task that fires ahead").isEqualTo(t.minusMillis(ahead));
    }

    void setNext(long taskId, Instant next, boolean firesAhead) {
        store.tx(tx -> tx.update(
                "UPDATE ax_task SET next_fire_at = ?, fires_ahead = ? WHERE id = ?", next, firesAhead, taskId));
    }

    Instant wakeUp(long aheadMillis) {
        return store.tx(tx -> store.tasks().earliestNextFire(tx, aheadMillis)).orElseThrow();
    }

    @Test
    void a_claim_takes_due_ready_runs_of_the_groups_and_fences_reports() {
        long id = newInstance("k1");
        List<RunRow> claimed =
                store.tx(tx -> store.claims().claim(tx, "e1", List.of("default"), List.of(), 10, 30_000, "n1", null));
        assertThat(claimed).singleElement().satisfies(r -> {
            assertThat(r.id()).isEqualTo(id);
            assertThat(r.state()).isEqualTo(RunState.RUNNING);
            assertThat(r.attempt()).isEqualTo(1);
            assertThat(r.executorId()).isEqualTo("e1");
            assertThat(r.leaseExpiresAt()).isAfter(r.startedAt());
            assertThat(r.params()).containsEntry("x", 1);
        });
        List<RunRow> none =
                store.tx(tx -> store.claims().claim(tx, "e2", List.of("default"), List.of(), 10, 30_000, "n1", null));
        assertThat(none).isEmpty();
        boolean holds = store.tx(tx -> store.leases().holds(tx, new RunRef(id, 1), "e1"));
        boolean stranger = store.tx(tx -> store.leases().holds(tx, new RunRef(id, 1), "e2"));
        boolean stale = store.tx(tx -> store.leases().holds(tx, new RunRef(id, 0), "e1"));
        assertThat(holds).isTrue();
        assertThat(stranger).isFalse();
        assertThat(stale).isFalse();
    }

    @Test
    void a_claim_ahead_takes_the_runs_due_by_its_slot_starts_them_at_the_slot_and_their_shards_wait_for_it() {
        long due = newInstance("k-due");
        long atSlot = newInstance("k-slot");
        long after = newInstance("k-after");
        Instant slot = store.tx(tx -> tx.now()).plusSeconds(60).truncatedTo(ChronoUnit.MILLIS);
        store.tx(tx -> tx.update("UPDATE ax_instance SET ready_at = ? WHERE id = ?", slot, atSlot)
                + tx.update("UPDATE ax_instance SET ready_at = ? WHERE id = ?", slot.plusSeconds(1), after));

        List<RunRow> now =
                store.tx(tx -> store.claims().claim(tx, "e1", List.of("default"), List.of(), 10, 30_000, "n1", null));
        assertThat(now)
                .as("a claim without a slot takes only what is due")
                .extracting(RunRow::id)
                .containsExactly(due);
        long dueMeanwhile = newInstance("k-due-2");
        List<RunRow> ahead =
                store.tx(tx -> store.claims().claim(tx, "e2", List.of("default"), List.of(), 10, 30_000, "n1", slot));
        assertThat(ahead).extracting(RunRow::id).containsExactly(dueMeanwhile, atSlot);
        assertThat(ahead).as("started when they are handed out: at the slot").allSatisfy(r -> {
            assertThat(r.startedAt()).isEqualTo(slot);
            assertThat(r.state()).isEqualTo(RunState.RUNNING);
        });
        assertThat(eventsOf(atSlot))
                .filteredOn(e -> e.type() == EventType.CLAIMED)
                .singleElement()
                .satisfies(e -> {
                    // A routine step read from the run: the claim is told when the run is handed out.
                    assertThat(e.at()).as("handed out at the slot").isEqualTo(slot);
                    assertThat(e.nodeId()).isEqualTo("n1");
                });
        assertThat(eventsOf(due))
                .filteredOn(e -> e.type() == EventType.CLAIMED)
                .singleElement()
                .satisfies(e -> assertThat(e.message()).isNull());
        assertThat(row(after).state()).as("a run due after the slot stays").isEqualTo(RunState.READY);
        assertThat(row(due).startedAt()).isBefore(slot);

        // The shards of a run claimed ahead are due at its slot; those of a run due now at once.
        store.tx(tx -> {
            store.shards().create(tx, atSlot, 2, "default", null, slot);
            store.shards().create(tx, due, 2, "default", null, Instant.parse("2026-01-01T00:00:00Z"));
            return null;
        });
        List<ShardStore.Candidate> claimable =
                store.tx(tx -> store.shards().claimable(tx, List.of("default"), List.of(), 10, 0));
        assertThat(claimable).extracting(c -> c.shard().instanceId()).containsExactly(due, due);
    }

    @Test
    void claims_made_together_share_the_oldest_runs_in_turn_each_moved_to_its_executor_with_its_own_event() {
        List<Long> ids = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            ids.add(newInstance("k" + i));
        }
        List<List<RunRow>> got = store.tx(tx -> store.claims()
                .claimEach(
                        tx,
                        List.of(
                                new ClaimStore.Claimant("e1", 2),
                                new ClaimStore.Claimant("e2", 0),
                                new ClaimStore.Claimant("e3", 2),
                                new ClaimStore.Claimant("e1", 2)),
                        List.of("default"),
                        List.of(),
                        30_000,
                        "n1",
                        null));
        assertThat(got).hasSize(4);
        assertThat(got.get(0)).extracting(RunRow::id).containsExactly(ids.get(0), ids.get(1));
        assertThat(got.get(1)).as("a claimant that asks for none").isEmpty();
        assertThat(got.get(2)).extracting(RunRow::id).containsExactly(ids.get(2), ids.get(3));
        assertThat(got.get(3))
                .as("the same executor again gets a share of its own")
                .extracting(RunRow::id)
                .containsExactly(ids.get(4));
        assertThat(got.get(2)).allSatisfy(r -> {
            assertThat(r.state()).isEqualTo(RunState.RUNNING);
            assertThat(r.attempt()).isEqualTo(1);
            assertThat(r.executorId()).isEqualTo("e3");
            assertThat(r.leaseExpiresAt()).isAfter(r.startedAt());
        });
        assertThat(row(ids.get(3)).executorId()).isEqualTo("e3");
        assertThat(eventsOf(ids.get(3)))
                .filteredOn(e -> e.type() == EventType.CLAIMED)
                .singleElement()
                .satisfies(e -> {
                    assertThat(e.actor()).isEqualTo("executor:e3");
                    assertThat(e.data()).containsEntry("executor", "e3");
                    assertThat(e.from()).isEqualTo(RunState.READY);
                    assertThat(e.to()).isEqualTo(RunState.RUNNING);
                    assertThat(e.attempt()).isEqualTo(1);
                    assertThat(e.nodeId()).isEqualTo("n1");
                });
        assertThat(eventsOf(ids.get(0)))
                .filteredOn(e -> e.type() == EventType.CLAIMED)
                .singleElement()
                .satisfies(e -> assertThat(e.actor()).isEqualTo("executor:e1"));
        List<List<RunRow>> none = store.tx(tx -> store.claims()
                .claimEach(
                        tx,
                        List.of(new ClaimStore.Claimant("e4", 10)),
                        List.of("default"),
                        List.of(),
                        30_000,
                        "n1",
                        null));
        assertThat(none).singleElement().satisfies(l -> assertThat(l).isEmpty());
    }

    @Test
    void many_successes_move_like_single_moves_fenced_each_with_its_event() {
        long a = newInstance("a");
        long b = newInstance("b");
        long c = newInstance("c");
        long d = newInstance("d");
        store.tx(tx -> store.claims().claim(tx, "e1", List.of("default"), List.of(), 10, 30_000, "n1", null));
        // d is not RUNNING any more when the successes arrive: a lost race, left out like a move that finds no row.
        terminateByHand(d);
        Set<Long> moved = store.tx(tx -> store.runBatches()
                .succeedAll(
                        tx,
                        List.of(
                                new RunBatches.Success(c, 1, "e1", 0, null, false),
                                new RunBatches.Success(a, 1, "e1", 3, "done, 3 rows", false),
                                new RunBatches.Success(b, 2, "e1", 0, null, false), // a stale attempt: fenced out
                                new RunBatches.Success(d, 1, "e1", 0, null, false)),
                        "n1"));
        assertThat(moved).containsExactlyInAnyOrder(a, c);
        assertThat(row(a)).satisfies(r -> {
            assertThat(r.state()).isEqualTo(RunState.SUCCESS);
            assertThat(r.exitCode()).isEqualTo(3);
            assertThat(r.message()).isEqualTo("done, 3 rows");
            assertThat(r.finishedAt()).isNotNull();
            assertThat(r.leaseExpiresAt()).isNull();
        });
        assertThat(row(b).state()).isEqualTo(RunState.RUNNING);
        assertThat(row(d).state()).isEqualTo(RunState.TERMINATED);
        List<EventRow> events = store.tx(tx -> store.events().forRun(tx, a, 0, 10));
        assertThat(events)
                .extracting(EventRow::type)
                .containsExactly(EventType.CREATED, EventType.CLAIMED, EventType.SUCCEEDED);
        assertThat(events.getLast()).satisfies(e -> {
            assertThat(e.from()).isEqualTo(RunState.RUNNING);
            assertThat(e.to()).isEqualTo(RunState.SUCCESS);
            assertThat(e.attempt()).isEqualTo(1);
            assertThat(e.actor()).isEqualTo("executor:e1");
            assertThat(e.nodeId()).isEqualTo("n1");
            assertThat(e.message()).isEqualTo("done, 3 rows");
            assertThat(e.taskName()).isEqualTo("t");
        });
        List<EventRow> ofStale = store.tx(tx -> store.events().forRun(tx, b, 0, 10));
        List<EventRow> ofTerminated = store.tx(tx -> store.events().forRun(tx, d, 0, 10));
        assertThat(ofStale).extracting(EventRow::type).doesNotContain(EventType.SUCCEEDED);
        assertThat(ofTerminated).extracting(EventRow::type).doesNotContain(EventType.SUCCEEDED);
    }

    @Test
    void a_task_timeline_holds_the_task_events_and_what_its_runs_did_beyond_their_routine() {
        long a = store.tx(tx -> store.runs()
                        .create(
                                tx,
                                new NewRun(
                                        task.id(),
                                        "t",
                                        1,
                                        Cause.CRON,
                                        "2026-11-29T02:00:00Z",
                                        Instant.parse("2026-11-29T02:00:00Z"),
                                        Map.of(),
                                        RunState.READY,
                                        1,
                                        "default",
                                        EventStore.SCHEDULER_ACTOR,
                                        "n1",
                                        null,
                                        null,
                                        null)))
                .orElseThrow();
        long b = newInstance("b"); // triggered by "test"
        store.tx(tx -> store.claims().claim(tx, "e1", List.of("default"), List.of(), 10, 30_000, "n1", null));
        store.tx(tx ->
                store.runBatches().succeedAll(tx, List.of(new RunBatches.Success(a, 1, "e1", 0, null, false)), "n1"));
        terminateByHand(b);
        store.tx(tx -> {
            store.events()
                    .append(tx, new NewEvent(task.id(), "t", EventType.TASK_PAUSED, "olga", "n1", "paused", Map.of()));
            return null;
        });
        List<EventRow> timeline = store.tx(tx -> store.events().forTask(tx, task.id(), Long.MAX_VALUE, 10));
        assertThat(timeline)
                .extracting(EventRow::type)
                .containsExactly(EventType.TASK_PAUSED, EventType.TERMINATED, EventType.CREATED);
        assertThat(timeline.subList(1, 3))
                .allSatisfy(e -> assertThat(e.instanceId()).isEqualTo(b));
        assertThat(timeline.get(2).actor()).isEqualTo("test");
        // Each run keeps its whole story.
        assertThat(eventsOf(a))
                .extracting(EventRow::type)
                .containsExactly(EventType.CREATED, EventType.CLAIMED, EventType.SUCCEEDED);
        List<EventRow> older = store.tx(
                tx -> store.events().forTask(tx, task.id(), timeline.getFirst().id(), 10));
        assertThat(older).extracting(EventRow::type).containsExactly(EventType.TERMINATED, EventType.CREATED);
    }

    /** A run the scheduler fires for a slot, READY, with no note: its creation is routine. */
    NewRun scheduled(String slot) {
        return new NewRun(
                task.id(),
                "t",
                1,
                Cause.CRON,
                slot,
                Instant.parse(slot),
                Map.of(),
                RunState.READY,
                3,
                "default",
                EventStore.SCHEDULER_ACTOR,
                "n0",
                null,
                null,
                null);
    }

    long scheduledRun(String slot) {
        return store.tx(tx -> store.runs().create(tx, scheduled(slot))).orElseThrow();
    }

    long storedEvents(long id) {
        return store.tx(
                tx -> tx.queryOne("SELECT COUNT(*) AS n FROM ax_event WHERE instance_id = ?", r -> r.lng("n"), id)
                        .orElseThrow());
    }

    @Test
    void a_routine_run_writes_no_event_and_its_timeline_is_read_from_its_row() {
        long id = scheduledRun("2026-11-29T02:00:00Z");
        store.tx(tx -> store.claims().claim(tx, "e1", List.of("default"), List.of(), 10, 30_000, "n1", null));
        store.tx(tx -> store.runBatches()
                .recordStartedAll(tx, List.of(new RunBatches.Start(new RunRef(id, 1), "e1", 42)), "n2"));
        store.tx(tx ->
                store.runBatches().succeedAll(tx, List.of(new RunBatches.Success(id, 1, "e1", 0, null, false)), "n3"));

        assertThat(storedEvents(id)).isZero();
        RunRow run = row(id);
        List<EventRow> timeline = eventsOf(id);
        assertThat(timeline)
                .extracting(
                        EventRow::type,
                        EventRow::from,
                        EventRow::to,
                        EventRow::attempt,
                        EventRow::actor,
                        EventRow::nodeId)
                .containsExactly(
                        tuple(EventType.CREATED, null, RunState.READY, 0, EventStore.SCHEDULER_ACTOR, "n0"),
                        tuple(EventType.CLAIMED, RunState.READY, RunState.RUNNING, 1, "executor:e1", "n1"),
                        tuple(EventType.STARTED, null, null, 1, "executor:e1", "n2"),
                        tuple(EventType.SUCCEEDED, RunState.RUNNING, RunState.SUCCESS, 1, "executor:e1", "n3"));
        assertThat(timeline).allSatisfy(e -> {
            assertThat(e.instanceId()).isEqualTo(id);
            assertThat(e.taskName()).isEqualTo("t");
        });
        assertThat(timeline.get(0).data())
                .containsEntry("cause", "cron")
                .containsEntry("fireKey", "2026-11-29T02:00:00Z");
        assertThat(timeline.get(0).at()).isEqualTo(run.createdAt());
        assertThat(timeline.get(1).at()).isEqualTo(run.startedAt());
        assertThat(timeline.get(1).data()).containsEntry("executor", "e1");
        assertThat(timeline.get(2).message()).isEqualTo("pid 42 on executor e1");
        assertThat(timeline.get(2).data()).containsEntry("executor", "e1").containsEntry("pid", 42L);
        assertThat(timeline.get(3).message()).isEqualTo("exit 0");
        assertThat(timeline.get(3).at()).isEqualTo(run.finishedAt());
    }

    @Test
    void a_next_attempt_keeps_the_last_attempts_claim_and_start_as_events() {
        long id = scheduledRun("2026-11-29T03:00:00Z");
        store.tx(tx -> store.claims().claim(tx, "e1", List.of("default"), List.of(), 10, 30_000, "n1", null));
        store.tx(tx -> store.runBatches()
                .recordStartedAll(tx, List.of(new RunBatches.Start(new RunRef(id, 1), "e1", 7)), "n1"));
        Instant firstClaim = row(id).startedAt();
        store.tx(tx -> store.runs()
                .move(
                        tx,
                        Move.of(id, RunState.RUNNING, RunState.RETRYING)
                                .fence(1, "e1")
                                .event(EventType.FAILED, "executor:e1", "n1", "exit 1")));
        store.tx(tx -> store.runs()
                .move(
                        tx,
                        Move.of(id, RunState.RETRYING, RunState.READY)
                                .event(EventType.RETRY_READY, "scheduler", "n1", null)));
        store.tx(tx -> store.claims().claim(tx, "e2", List.of("default"), List.of(), 10, 30_000, "n2", null));

        List<EventRow> timeline = eventsOf(id);
        assertThat(timeline)
                .extracting(EventRow::type, EventRow::attempt, EventRow::actor)
                .containsExactly(
                        tuple(EventType.CREATED, 0, EventStore.SCHEDULER_ACTOR),
                        tuple(EventType.CLAIMED, 1, "executor:e1"),
                        tuple(EventType.STARTED, 1, "executor:e1"),
                        tuple(EventType.FAILED, 1, "executor:e1"),
                        tuple(EventType.RETRY_READY, 1, "scheduler"),
                        tuple(EventType.CLAIMED, 2, "executor:e2"));
        // The first attempt's steps are rows now, with the time they happened; the second is still read from the run.
        assertThat(storedEvents(id)).isEqualTo(4);
        assertThat(timeline.get(1).id()).isPositive();
        assertThat(timeline.get(1).at()).isEqualTo(firstClaim);
        assertThat(timeline.get(1).data()).containsOnlyKeys("executor");
        // The row itself says when it was written, as every event does: the alert tail reads holes by that time.
        Instant written = store.tx(tx -> tx.queryOne(
                        "SELECT at FROM ax_event WHERE instance_id = ? AND type = 'CLAIMED'", r -> r.instant("at"), id)
                .orElseThrow());
        assertThat(written).isAfter(firstClaim);
        assertThat(timeline.get(2).message()).isEqualTo("pid 7 on executor e1");
        assertThat(timeline.get(5).id()).isZero();
    }

    @Test
    void a_success_that_alerts_watch_is_an_event_and_is_told_once() {
        long id = scheduledRun("2026-11-29T04:00:00Z");
        store.tx(tx -> store.claims().claim(tx, "e1", List.of("default"), List.of(), 10, 30_000, "n1", null));
        store.tx(tx ->
                store.runBatches().succeedAll(tx, List.of(new RunBatches.Success(id, 1, "e1", 0, "done", true)), "n1"));
        assertThat(storedEvents(id)).isEqualTo(1);
        assertThat(eventsOf(id))
                .extracting(EventRow::type)
                .containsExactly(EventType.CREATED, EventType.CLAIMED, EventType.SUCCEEDED);
        assertThat(eventsOf(id).getLast().id()).isPositive();
        assertThat(eventsOf(id).getLast().message()).isEqualTo("done");
    }

    @Test
    void the_tally_hears_of_routine_steps_once_committed_and_never_of_a_rollback() {
        List<String> heard = new java.util.concurrent.CopyOnWriteArrayList<>();
        store.tallyTo(new RunTally() {
            @Override
            public void created(Cause cause, Instant slot, Instant at) {
                heard.add("created " + cause.wireName() + " " + slot);
            }

            @Override
            public void claimed(Cause cause, int attempt, Instant slot, Instant at) {
                heard.add("claimed " + attempt);
            }

            @Override
            public void succeeded(int runs) {
                heard.add("succeeded " + runs);
            }
        });
        long id = scheduledRun("2026-11-29T05:00:00Z");
        assertThatThrownBy(() -> store.tx(tx -> {
                    store.runs().create(tx, scheduled("2026-11-29T06:00:00Z"));
                    throw new IllegalStateException("rolled back");
                }))
                .hasMessage("rolled back");
        store.tx(tx -> store.claims().claim(tx, "e1", List.of("default"), List.of(), 10, 30_000, "n1", null));
        store.tx(tx ->
                store.runBatches().succeedAll(tx, List.of(new RunBatches.Success(id, 1, "e1", 0, null, false)), "n1"));
        assertThat(heard).containsExactly("created cron 2026-11-29T05:00:00Z", "claimed 1", "succeeded 1");
    }

    @Test
    void a_heartbeat_renews_the_leases_still_held_and_names_the_lost_ones() {
        long a = newInstance("a");
        long b = newInstance("b");
        long c = newInstance("c");
        store.tx(tx -> store.claims().claim(tx, "e1", List.of("default"), List.of(), 10, 30_000, "n1", null));
        terminateByHand(c);
        Instant leaseOfA = row(a).leaseExpiresAt();
        List<RunRef> lost = store.tx(tx -> store.leases()
                .renewLeases(
                        tx,
                        "e1",
                        List.of(
                                new RunRef(c, 1), // ended meanwhile
                                new RunRef(b, 2), // an attempt it does not hold
                                new RunRef(a, 1), // still held: renewed
                                new RunRef(999_999, 1)),
                        60_000)); // no such run
        assertThat(lost).containsExactlyInAnyOrder(new RunRef(c, 1), new RunRef(b, 2), new RunRef(999_999, 1));
        assertThat(row(a).leaseExpiresAt()).isAfter(leaseOfA);
        List<RunRef> ofStranger =
                store.tx(tx -> store.leases().renewLeases(tx, "e2", List.of(new RunRef(a, 1)), 60_000));
        assertThat(ofStranger).containsExactly(new RunRef(a, 1));
    }

    @Test
    void many_starts_record_each_pid_with_its_event_fenced_like_one() {
        long a = newInstance("a");
        long b = newInstance("b");
        store.tx(tx -> store.claims().claim(tx, "e1", List.of("default"), List.of(), 10, 30_000, "n1", null));
        Set<Long> recorded = store.tx(tx -> store.runBatches()
                .recordStartedAll(
                        tx,
                        List.of(
                                new RunBatches.Start(new RunRef(b, 1), "e1", 42),
                                new RunBatches.Start(new RunRef(a, 1), "e2", 43)),
                        "n1")); // e2 does not hold a
        assertThat(recorded).containsExactly(b);
        assertThat(row(b).pid()).isEqualTo(42L);
        assertThat(row(a).pid()).isNull();
        List<EventRow> events = store.tx(tx -> store.events().forRun(tx, b, 0, 10));
        assertThat(events.getLast()).satisfies(e -> {
            assertThat(e.type()).isEqualTo(EventType.STARTED);
            assertThat(e.actor()).isEqualTo("executor:e1");
            assertThat(e.message()).isEqualTo("pid 42 on executor e1");
            assertThat(e.data()).containsEntry("executor", "e1").containsKey("pid");
        });
        List<EventRow> ofA = store.tx(tx -> store.events().forRun(tx, a, 0, 10));
        assertThat(ofA).extracting(EventRow::type).doesNotContain(EventType.STARTED);
    }

    @Test
    void runs_are_counted_and_listed_by_state_whichever_index_holds_the_state() {
        long ready = newInstance("k1");
        long canceled = newInstance("k2");
        long succeeded = newInstance("k3");
        long waiting = newInstance("k4");
        store.tx(tx -> store.runs()
                .move(
                        tx,
                        Move.of(canceled, RunState.READY, RunState.CANCELED)
                                .finished()
                                .event(EventType.CANCELED, "op", "n1", "by hand")));
        store.tx(tx -> tx.update("UPDATE ax_instance SET state = 'SUCCESS' WHERE id = ?", succeeded));
        store.tx(tx -> tx.update("UPDATE ax_instance SET state = 'WAITING_APPROVAL' WHERE id = ?", waiting));
        Map<RunState, Long> counts = store.tx(tx -> store.runs()
                .countInStates(
                        tx,
                        List.of(
                                RunState.READY,
                                RunState.RUNNING,
                                RunState.CANCELED,
                                RunState.WAITING_APPROVAL,
                                RunState.SUCCESS)));
        assertThat(counts)
                .containsExactlyInAnyOrderEntriesOf(Map.of(
                        RunState.READY,
                        1L,
                        RunState.RUNNING,
                        0L,
                        RunState.CANCELED,
                        1L,
                        RunState.WAITING_APPROVAL,
                        1L,
                        RunState.SUCCESS,
                        1L));
        for (Map.Entry<RunState, Long> e : Map.of(
                        RunState.READY, ready, RunState.CANCELED, canceled, RunState.SUCCESS, succeeded)
                .entrySet()) {
            List<RunRow> listed = store.tx(tx ->
                    store.runs().list(tx, new RunStore.RunFilter(null, e.getKey(), null, null), Long.MAX_VALUE, 10));
            assertThat(listed).as(e.getKey().name()).extracting(RunRow::id).containsExactly(e.getValue());
        }
    }

    @Test
    void other_groups_do_not_see_the_run() {
        newInstance("k1");
        List<RunRow> claimed =
                store.tx(tx -> store.claims().claim(tx, "e1", List.of("gpu"), List.of(), 10, 30_000, "n1", null));
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
                .hasMessageContaining("ax_instance")
                .hasMessageContaining("refusing to start");
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
