package dev.ax.scheduler;

import static dev.ax.scheduler.TestNodes.event;
import static dev.ax.scheduler.TestNodes.task;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.domain.protocol.Completion;
import dev.ax.domain.protocol.Poll;
import dev.ax.domain.protocol.Register;
import dev.ax.domain.protocol.RunRef;
import dev.ax.domain.protocol.WorkItem;
import dev.ax.domain.run.Cause;
import dev.ax.domain.run.EventType;
import dev.ax.domain.run.FailureKind;
import dev.ax.domain.run.RunState;
import dev.ax.domain.task.ValidationException;
import dev.ax.store.DbConfig;
import dev.ax.store.NewEvent;
import dev.ax.store.Store;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * History retention on H2 and PostgreSQL. Deleting is the dangerous direction: most of these tests set up runs that
 * something still needs beside runs that may go, age them all past every period (their times moved back in the
 * database), and check that exactly the ones that may go went. The nodes are not started: a round runs when a test
 * calls it.
 */
abstract class RetentionContractTest {
    static final Duration LONG_AGO = Duration.ofDays(400);
    static final String EXECUTOR = "retention-test";

    Store store;
    SchedulerNode node;

    abstract DbConfig config();

    @BeforeEach
    void open() {
        store = Store.open(config());
        node = TestNodes.node(store, "n1");
        node.dispatcher()
                .register(new Register(
                        EXECUTOR, UUID.randomUUID().toString(), List.of("default"), "test", 1, "test", List.of()));
    }

    @AfterEach
    void close() {
        node.close();
        store.close();
    }

    // ---- helpers ----------------------------------------------------------------------------------------------

    void create(String name, Map<String, Object> policy) {
        node.tasks().create(task(name, event(), "true", policy), "test");
    }

    long trigger(String task) {
        return node.tasks().trigger(task, Map.of(), Cause.MANUAL, "test");
    }

    /** Claims every ready run (one executor, as a real one would). */
    List<WorkItem> claim() throws InterruptedException {
        return node.dispatcher().poll(new Poll(EXECUTOR, List.of("default"), 100, 0));
    }

    /** Creates a task, triggers a run of it, claims it and writes a line of output; the run goes on. */
    RunRef goingWithOutput(String task, String line) throws InterruptedException {
        create(task, null);
        trigger(task);
        RunRef ref = claim().getFirst().ref();
        store.tx(tx -> {
            store.logs().append(tx, ref, "stdout", List.of(line));
            return null;
        });
        return ref;
    }

    /** Triggers a run, claims it, writes a line of output and ends it; returns its id. */
    long run(String task, boolean success) throws InterruptedException {
        long id = trigger(task);
        for (WorkItem item : claim()) {
            RunRef ref = item.ref();
            store.tx(tx -> {
                store.logs().append(tx, ref, "stdout", List.of("output of " + ref.instanceId()));
                return null;
            });
            node.dispatcher()
                    .complete(new Completion(
                            EXECUTOR,
                            ref,
                            success,
                            success ? null : FailureKind.EXIT_CODE,
                            success ? 0 : 1,
                            success ? "ok" : "exit 1"));
        }
        return id;
    }

    /** Moves every time of a run back by {@code by}: as if it had happened that long ago. */
    void age(long id, Duration by) {
        age(" WHERE id = " + id, by);
    }

    /**
     * Moves the times of the runs {@code where} selects back by {@code by}. Tests age whole stretches of runs at once,
     * so that, as in a real history, a run with a higher id is never older than one with a lower id: retention's walk
     * stops at the first run too young to have expired.
     */
    void age(String where, Duration by) {
        store.tx(tx -> {
            tx.update(
                    "UPDATE ax_log SET at = " + tx.dialect().plusMillis("at")
                            + " WHERE instance_id IN (SELECT id FROM ax_instance" + where + ")",
                    -by.toMillis());
            return tx.update(
                    "UPDATE ax_instance SET created_at = " + tx.dialect().plusMillis("created_at") + ", scheduled_at = "
                            + tx.dialect().plusMillis("scheduled_at") + ", updated_at = "
                            + tx.dialect().plusMillis("updated_at") + ", finished_at = "
                            + tx.dialect().plusMillis("finished_at") + where,
                    -by.toMillis(),
                    -by.toMillis(),
                    -by.toMillis(),
                    -by.toMillis());
        });
    }

    boolean exists(long id) {
        return store.tx(tx -> store.runs().find(tx, id)).isPresent();
    }

    RunState state(long id) {
        return store.tx(tx -> store.runs().find(tx, id)).orElseThrow().state();
    }

    long count(String sql, Object... args) {
        return store.tx(tx -> tx.queryOne(sql, r -> r.lng(1), args)).orElseThrow();
    }

    // ---- what goes --------------------------------------------------------------------------------------------

    @Test
    void an_expired_run_goes_with_its_events_output_and_follow_ups_and_its_newer_run_stays() throws Exception {
        create("report", null);
        long old1 = run("report", true);
        long old2 = run("report", false);
        long recent = run("report", true);
        age(old1, Duration.ofDays(91));
        age(old2, Duration.ofDays(91));
        store.tx(tx -> {
            // a follow-up carried out long ago
            tx.update(
                    "INSERT INTO ax_follow_up (instance_id, task_id, position, action, state, next_at, created_at)"
                            + " VALUES (?, 1, 0, '{}', 'DONE', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)",
                    old2);
            return null;
        });
        assertThat(count("SELECT COUNT(*) FROM ax_event WHERE instance_id = ?", old1))
                .isPositive();

        Retention.Result r = node.retention().tick();

        assertThat(r.runs()).isEqualTo(2);
        assertThat(exists(old1)).isFalse();
        assertThat(exists(old2)).isFalse();
        assertThat(exists(recent)).isTrue();
        for (long gone : new long[] {old1, old2}) {
            assertThat(count("SELECT COUNT(*) FROM ax_event WHERE instance_id = ?", gone))
                    .isZero();
            assertThat(count("SELECT COUNT(*) FROM ax_log WHERE instance_id = ?", gone))
                    .isZero();
            assertThat(count("SELECT COUNT(*) FROM ax_follow_up WHERE instance_id = ?", gone))
                    .isZero();
        }
        assertThat(count("SELECT COUNT(*) FROM ax_event WHERE instance_id = ?", recent))
                .isPositive();
        assertThat(count("SELECT COUNT(*) FROM ax_log WHERE instance_id = ?", recent))
                .isEqualTo(1);
        assertThat(node.retention().tick().runs())
                .as("a second round finds nothing")
                .isZero();
        assertThat(node.retention().totals().runs()).isEqualTo(2);
    }

    @Test
    void output_goes_after_the_log_period_while_its_run_stays_and_a_run_still_going_keeps_it() throws Exception {
        create("chatty", null);
        RunRef ref = goingWithOutput("endless", "started a month ago");
        long going = ref.instanceId();
        long old = run("chatty", true);
        long recent = run("chatty", true);
        age(" WHERE id IN (" + going + ", " + old + ")", Duration.ofDays(31));

        assertThat(node.retention().tick().logChunks()).isEqualTo(1);

        assertThat(exists(old)).isTrue();
        assertThat(count("SELECT COUNT(*) FROM ax_log WHERE instance_id = ?", old))
                .isZero();
        assertThat(count("SELECT COUNT(*) FROM ax_log WHERE instance_id = ?", recent))
                .isEqualTo(1);
        assertThat(count("SELECT COUNT(*) FROM ax_log WHERE instance_id = ?", going))
                .as("the output of a run still going")
                .isEqualTo(1);

        // It ends (a month ago, as far as the periods go): its output goes at the next round.
        node.dispatcher().complete(new Completion(EXECUTOR, ref, true, null, 0, "ok"));
        age(going, Duration.ofDays(31));
        assertThat(node.retention().tick().logChunks()).isEqualTo(1);
        assertThat(count("SELECT COUNT(*) FROM ax_log WHERE instance_id = ?", going))
                .isZero();
    }

    @Test
    void a_tasks_own_short_period_is_applied_to_its_runs_only() throws Exception {
        create("minutely", Map.of("retention", Map.of("runs", "PT1H")));
        create("plain", null);
        long shortOld = run("minutely", true);
        long shortNew = run("minutely", true);
        long plainOld = run("plain", true);
        run("plain", true);
        age(shortOld, Duration.ofHours(2));
        age(shortNew, Duration.ofMinutes(30));
        age(plainOld, Duration.ofHours(2));

        assertThat(node.retention().tick().runs()).isEqualTo(1);

        assertThat(exists(shortOld)).isFalse();
        assertThat(exists(shortNew)).isTrue();
        assertThat(exists(plainOld)).as("the server's P90D").isTrue();
    }

    @Test
    void failed_runs_stay_for_their_own_period() throws Exception {
        create("etl", Map.of("retention", Map.of("runs", "P7D", "failedRuns", "P180D")));
        long failed = run("etl", false);
        long succeeded = run("etl", true);
        long veryOldFailure = run("etl", false);
        run("etl", true);
        age(failed, Duration.ofDays(30));
        age(succeeded, Duration.ofDays(30));
        age(veryOldFailure, Duration.ofDays(181));

        node.retention().tick();

        assertThat(exists(failed)).isTrue();
        assertThat(exists(succeeded)).isFalse();
        assertThat(exists(veryOldFailure)).isFalse();
    }

    @Test
    void a_tasks_own_events_and_finished_workflow_runs_go_after_the_servers_period() {
        create("edited", null);
        long taskId =
                store.tx(tx -> store.tasks().find(tx, "edited")).orElseThrow().id();
        store.tx(tx -> {
            store.events()
                    .append(tx, new NewEvent(taskId, "edited", EventType.MISFIRE_SKIPPED, "t", "n", "old", Map.of()));
            // Everything so far happened long ago (events by id are in the order of time, as in a real history).
            tx.update(
                    "UPDATE ax_event SET at = " + tx.dialect().plusMillis("at"),
                    -Duration.ofDays(91).toMillis());
            store.events()
                    .append(tx, new NewEvent(taskId, "edited", EventType.MISFIRE_SKIPPED, "t", "n", "new", Map.of()));
            for (String state : List.of("SUCCESS", "RUNNING")) {
                tx.update(
                        "INSERT INTO ax_workflow_run (workflow_id, workflow_name, workflow_version, definition, cause,"
                                + " fire_key, scheduled_at, state, actor, node_id, created_at, updated_at, finished_at)"
                                + " VALUES (1, 'wf', 1, '{}', 'MANUAL', ?, CURRENT_TIMESTAMP, ?, 't', 'n',"
                                + " CURRENT_TIMESTAMP, CURRENT_TIMESTAMP, "
                                + tx.dialect().plusMillis("CURRENT_TIMESTAMP") + ")",
                        "k-" + state,
                        state,
                        -Duration.ofDays(91).toMillis());
            }
            return null;
        });

        Retention.Result r = node.retention().tick();

        assertThat(r.taskEvents()).isPositive();
        assertThat(r.workflowRuns()).isEqualTo(1);
        assertThat(count("SELECT COUNT(*) FROM ax_event WHERE message = 'old'")).isZero();
        assertThat(count("SELECT COUNT(*) FROM ax_event WHERE message = 'new'")).isEqualTo(1);
        assertThat(count("SELECT COUNT(*) FROM ax_workflow_run WHERE state = 'RUNNING'"))
                .as("a workflow run in progress stays, whatever its age")
                .isEqualTo(1);
    }

    // ---- what stays -------------------------------------------------------------------------------------------

    @Test
    void nothing_that_is_still_needed_is_ever_deleted() throws Exception {
        Kept kept = new Kept();

        Retention.Result r = node.retention().tick();

        kept.check(r.runs());
        assertThat(node.retention().tick().runs()).as("nothing more goes").isZero();
        kept.check(r.runs());
    }

    @Test
    void the_newest_slot_of_a_task_that_waits_for_its_previous_slot_stays_behind_a_newer_manual_run() throws Exception {
        Map<String, Object> json = task("daily", TestNodes.cron("0 2 * * *"), "true", Map.of("overflow", "ALLOW"));
        json.put("dependsOn", List.of(Map.of("scope", "previousSlot")));
        node.tasks().create(json, "test");
        node.backfills().start("daily", Map.of("from", "2026-10-01", "to", "2026-10-02", "parallelism", 2), "ops");
        assertThat(node.housekeeping().backfills()).isEqualTo(2);
        List<Long> slots = new ArrayList<>();
        for (int i = 0; i < 2; i++) { // the second slot is READY once the first succeeded
            for (WorkItem item : claim()) {
                slots.add(item.ref().instanceId());
                node.dispatcher().complete(new Completion(EXECUTOR, item.ref(), true, null, 0, "ok"));
            }
        }
        assertThat(slots).hasSize(2);
        long manual = run("daily", true); // newer than both slots, and no slot itself
        age("", LONG_AGO);

        node.retention().tick();

        assertThat(exists(slots.get(0))).as("an older slot").isFalse();
        assertThat(exists(slots.get(1))).as("the slot the next one waits for").isTrue();
        assertThat(exists(manual)).as("the newest run").isTrue();
    }

    @Test
    void a_run_kept_for_a_while_goes_once_what_held_it_lets_go() throws Exception {
        SchedulerConfig rewalking =
                SchedulerConfig.DEFAULT.withRetention(HistoryRetention.DEFAULT.withRewalk(Duration.ZERO));
        try (SchedulerNode n = TestNodes.node(store, "rewalking", Duration.ZERO, rewalking)) {
            create("fragile", null);
            long failed = run("fragile", false);
            store.tx(tx -> tx.update(
                    "INSERT INTO ax_follow_up (instance_id, task_id, position, action, state, next_at, created_at)"
                            + " VALUES (?, 1, 0, '{}', 'PENDING', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)",
                    failed));
            run("fragile", true);
            age("", LONG_AGO);

            assertThat(n.retention().tick().runs()).isZero();
            store.tx(tx -> tx.update("UPDATE ax_follow_up SET state = 'DONE' WHERE instance_id = ?", failed));

            assertThat(n.retention().tick().runs()).isEqualTo(1);
            assertThat(exists(failed)).isFalse();
        }
    }

    @Test
    void two_nodes_expiring_at_once_delete_each_expired_run_once_and_nothing_else() throws Exception {
        Kept kept = new Kept();
        create("bulk", Map.of("overflow", "ALLOW"));
        List<Long> bulk = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            bulk.add(trigger("bulk"));
        }
        List<WorkItem> items = claim();
        while (!items.isEmpty()) {
            for (WorkItem item : items) {
                node.dispatcher().complete(new Completion(EXECUTOR, item.ref(), true, null, 0, "ok"));
            }
            items = claim();
        }
        age(" WHERE task_id = (SELECT id FROM ax_task WHERE name = 'bulk')", LONG_AGO);
        SchedulerConfig small = SchedulerConfig.DEFAULT.withRetention(new HistoryRetention(
                HistoryRetention.DEFAULT_RUNS, HistoryRetention.DEFAULT_LOGS, Duration.ofSeconds(1), 7, 1_000));
        try (SchedulerNode a = TestNodes.node(store, "a", Duration.ZERO, small);
                SchedulerNode b = TestNodes.node(store, "b", Duration.ZERO, small)) {
            ExecutorService pool = Executors.newFixedThreadPool(2);
            try {
                List<Callable<Integer>> work = List.of(() -> drain(a), () -> drain(b));
                int deleted = 0;
                for (Future<Integer> f : pool.invokeAll(work)) {
                    deleted += f.get(); // a round that threw fails here
                }
                assertThat(deleted).as("each expired run deleted once").isEqualTo(kept.expired + 299);
            } finally {
                pool.shutdownNow();
            }
        }
        assertThat(exists(bulk.getLast())).as("the newest run of a task").isTrue();
        bulk.subList(0, bulk.size() - 1).forEach(id -> assertThat(exists(id)).isFalse());
        kept.check(kept.expired);
    }

    /** Rounds until one deletes nothing; returns how many runs this node deleted. */
    static int drain(SchedulerNode n) {
        int total = 0;
        int deleted;
        do {
            deleted = n.retention().tick().runs();
            total += deleted;
        } while (deleted > 0);
        return total;
    }

    /**
     * Every kind of run retention must keep, each aged far past every period, beside runs of the same tasks that may
     * go. {@link #check} fails if a kept one is missing or an expired one is there.
     */
    final class Kept {
        final Map<Long, String> keep = new LinkedHashMap<>();
        final List<Long> go = new ArrayList<>();
        final int expired;

        Kept() throws Exception {
            // Not ended: a run an executor holds, and one waiting in line.
            create("busy", Map.of("maxConcurrency", 1));
            long running = trigger("busy");
            claim();
            long blocked = trigger("busy");
            keep.put(running, "RUNNING");
            keep.put(blocked, "BLOCKED");
            assertThat(state(blocked)).isEqualTo(RunState.BLOCKED);

            // keepLast 3: the three newest stay, the two older go.
            create("history", Map.of("retention", Map.of("runs", "P1D", "keepLast", 3)));
            for (int i = 0; i < 5; i++) {
                long id = run("history", true);
                if (i < 2) {
                    go.add(id);
                } else {
                    keep.put(id, "among the newest 3");
                }
            }

            // The newest run of a task, alone and old.
            create("yearly", null);
            keep.put(run("yearly", true), "the newest of its task");

            // A trigger's Idempotency-Key inside its window answers with its run.
            create("orders", null);
            long keyed = node.tasks()
                    .trigger("orders", Map.of(), Cause.EVENT, "test", false, new TriggerKey("order-1"))
                    .instanceId();
            finishReady();
            run("orders", true);
            keep.put(keyed, "answers a live trigger key");

            // The success that holds its task's idempotency key: a later run with the key must see it.
            create("daily", Map.of("idempotencyKey", "{{taskName}}:{{params.day}}"));
            long holder = node.tasks().trigger("daily", Map.of("day", "2026-01-01"), Cause.MANUAL, "test");
            finishReady();
            long other = node.tasks().trigger("daily", Map.of("day", "2026-01-02"), Cause.MANUAL, "test");
            for (WorkItem item : claim()) {
                node.dispatcher().complete(new Completion(EXECUTOR, item.ref(), false, FailureKind.EXIT_CODE, 1, "x"));
            }
            node.tasks().trigger("daily", Map.of("day", "2026-01-03"), Cause.MANUAL, "test");
            finishReady();
            keep.put(holder, "holds its task's idempotency key");
            go.add(other); // failed: it holds no key

            // A failure whose follow-up is still to be carried out.
            create("fragile", null);
            long pending = run("fragile", false);
            store.tx(tx -> tx.update(
                    "INSERT INTO ax_follow_up (instance_id, task_id, position, action, state, next_at, created_at)"
                            + " VALUES (?, 1, 0, '{}', 'PENDING', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)",
                    pending));
            run("fragile", true);
            keep.put(pending, "has a pending follow-up");

            // A step of a workflow run in progress.
            create("step", null);
            long step = run("step", true);
            store.tx(tx -> {
                long wf = tx.insert(
                                "INSERT INTO ax_workflow_run (workflow_id, workflow_name, workflow_version, definition,"
                                        + " cause, fire_key, scheduled_at, state, actor, node_id, created_at, updated_at)"
                                        + " VALUES (1, 'wf', 1, '{}', 'MANUAL', 'k', CURRENT_TIMESTAMP, 'RUNNING', 't',"
                                        + " 'n', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)")
                        .orElseThrow();
                tx.update("UPDATE ax_instance SET workflow_run_id = ? WHERE id = ?", wf, step);
                return null;
            });
            run("step", true);
            keep.put(step, "a step of a workflow run in progress");

            // A dependency: "down" waits for "up" on its date; up's runs that may decide it stay, older ones go.
            create("up", null);
            long upAncient = run("up", false);
            long upDecisive = run("up", false);
            node.tasks().create(dependent("down", "up"), "test");
            long waiting = trigger("down");
            assertThat(state(waiting)).isEqualTo(RunState.WAITING_DEPENDENCY);
            run("up", false); // up's newest run (kept as such); it fails, so down goes on waiting
            assertThat(state(waiting)).isEqualTo(RunState.WAITING_DEPENDENCY);
            go.add(upAncient);
            keep.put(upDecisive, "may decide a waiting run's dependency");
            keep.put(waiting, "WAITING_DEPENDENCY");

            // Age everything past every period; up's ancient run a year before the waiting run.
            age("", LONG_AGO);
            age(upAncient, Duration.ofDays(365));
            expired = go.size();
        }

        void finishReady() throws InterruptedException {
            for (WorkItem item : claim()) {
                node.dispatcher().complete(new Completion(EXECUTOR, item.ref(), true, null, 0, "ok"));
            }
        }

        void check(int deleted) {
            keep.forEach((id, why) ->
                    assertThat(exists(id)).as("run %d: %s", id, why).isTrue());
            go.forEach(id -> assertThat(exists(id)).as("run %d has expired", id).isFalse());
            assertThat(deleted).isGreaterThanOrEqualTo(go.size());
        }
    }

    static Map<String, Object> dependent(String name, String upstream) {
        Map<String, Object> json = task(name, event(), "true", null);
        json.put("dependsOn", List.of(Map.of("task", upstream, "scope", "sameDate")));
        return json;
    }

    // ---- what is refused --------------------------------------------------------------------------------------

    @Test
    void a_retention_that_makes_no_sense_is_refused_with_its_field() {
        for (var bad : List.of(
                Map.of("runs", "90 days"),
                Map.of("runs", "PT0S"),
                Map.of("failedRuns", "P4000D"),
                Map.of("keepLast", -1),
                Map.of("keepLast", 1.5),
                Map.of("forever", true))) {
            try {
                create("bad", Map.of("retention", bad));
                throw new AssertionError("accepted " + bad);
            } catch (ValidationException e) {
                String field = "policy.retention." + bad.keySet().iterator().next();
                assertThat(e.errors()).anySatisfy(err -> assertThat(err.field()).isEqualTo(field));
            }
        }
        assertThat(store.tx(tx -> store.tasks().find(tx, "bad")).isPresent()).isFalse();
    }
}
