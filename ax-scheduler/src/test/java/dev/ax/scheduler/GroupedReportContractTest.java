package dev.ax.scheduler;

import static dev.ax.scheduler.TestNodes.event;
import static dev.ax.scheduler.TestNodes.task;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.ax.domain.protocol.Completion;
import dev.ax.domain.protocol.LogChunk;
import dev.ax.domain.protocol.Poll;
import dev.ax.domain.protocol.Register;
import dev.ax.domain.protocol.ReportAnswer;
import dev.ax.domain.protocol.RunRef;
import dev.ax.domain.protocol.Started;
import dev.ax.domain.protocol.WorkItem;
import dev.ax.domain.run.Cause;
import dev.ax.domain.run.EventType;
import dev.ax.domain.run.FailureKind;
import dev.ax.domain.run.RunState;
import dev.ax.domain.task.ValidationException;
import dev.ax.store.DbConfig;
import dev.ax.store.EventRow;
import dev.ax.store.RunRow;
import dev.ax.store.Store;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * "Started" and success reports sent at the same time are committed in groups ({@code GroupedReports}), and so are
 * triggers ({@code Tasks}) and the claims of polls on one node ({@code Dispatcher}); every report, trigger and
 * claim still gets the answer and the record the single way would give it, and what must go the single way (a
 * limited task's freed slot, a refusal) still does.
 */
abstract class GroupedReportContractTest {
    Store store;
    SchedulerNode node;
    Dispatcher dispatcher;

    abstract DbConfig config();

    @BeforeEach
    void open() {
        store = Store.open(config());
        node = TestNodes.node(store, "n1", Duration.ZERO, SchedulerConfig.DEFAULT);
        dispatcher = node.dispatcher();
        dispatcher.register(new Register("e1", "e1-s1", List.of("default"), "test", 1, "t", List.of()));
    }

    @AfterEach
    void close() {
        node.close();
        store.close();
    }

    List<WorkItem> claim(int max) throws InterruptedException {
        List<WorkItem> items = new ArrayList<>();
        for (int i = 0; i < 50 && items.size() < max; i++) {
            items.addAll(dispatcher.poll(new Poll("e1", List.of("default"), max - items.size(), 200)));
        }
        return items;
    }

    /** {@code n} runs of an unlimited event task, all claimed by e1. */
    List<WorkItem> floodClaimed(int n) throws InterruptedException {
        node.tasks().create(task("flood", event(), "true", Map.of("overflow", "ALLOW")), "test");
        for (int i = 0; i < n; i++) {
            node.tasks().trigger("flood", Map.of("i", i), Cause.EVENT, "test");
        }
        List<WorkItem> items = claim(n);
        assertThat(items).hasSize(n);
        return items;
    }

    /** Every completion at once, each from its own thread, as an executor's run threads report. */
    List<ReportAnswer> completeAtOnce(List<Completion> completions) throws Exception {
        try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<ReportAnswer>> answers = new ArrayList<>();
            for (Completion c : completions) {
                answers.add(threads.submit(() -> dispatcher.complete(c)));
            }
            List<ReportAnswer> out = new ArrayList<>();
            for (Future<ReportAnswer> a : answers) {
                out.add(a.get());
            }
            return out;
        }
    }

    RunRow instance(long id) {
        return store.tx(tx -> store.runs().find(tx, id).orElseThrow());
    }

    List<EventRow> events(long id) {
        return store.tx(tx -> store.events().forRun(tx, id, 0, 1000));
    }

    @Test
    void successes_reported_together_are_each_applied_once_with_their_own_event() throws Exception {
        List<WorkItem> items = floodClaimed(60);
        List<Completion> reports = new ArrayList<>();
        for (int i = 0; i < items.size(); i++) {
            reports.add(new Completion(
                    "e1", items.get(i).ref(), true, null, 0, i % 2 == 0 ? null : "wrote " + i + " rows"));
        }
        List<ReportAnswer> answers = completeAtOnce(reports);

        assertThat(answers).allSatisfy(a -> assertThat(a.accepted()).isTrue());
        for (int i = 0; i < items.size(); i++) {
            long id = items.get(i).instanceId();
            assertThat(instance(id).state()).isEqualTo(RunState.SUCCESS);
            assertThat(instance(id).finishedAt()).isNotNull();
            List<EventRow> succeeded = events(id).stream()
                    .filter(e -> e.type() == EventType.SUCCEEDED)
                    .toList();
            String message = i % 2 == 0 ? "exit 0" : "wrote " + i + " rows";
            assertThat(succeeded).singleElement().satisfies(e -> {
                assertThat(e.actor()).isEqualTo("executor:e1");
                assertThat(e.message()).isEqualTo(message);
                assertThat(e.attempt()).isEqualTo(1);
            });
        }
    }

    @Test
    void the_same_success_reported_twice_at_once_is_applied_once_and_the_other_refused_on_record() throws Exception {
        node.tasks().create(task("job", event(), "true", Map.of("overflow", "ALLOW")), "test");
        long id = node.tasks().trigger("job", Map.of(), Cause.EVENT, "test");
        WorkItem item = claim(1).getFirst();
        Completion report = new Completion("e1", item.ref(), true, null, 0, null);
        Completion stale = new Completion("e1", new RunRef(id, item.ref().attempt() + 1), true, null, 0, null);

        List<ReportAnswer> answers = completeAtOnce(List.of(report, report, stale));

        assertThat(answers).filteredOn(ReportAnswer::accepted).hasSize(1);
        assertThat(instance(id).state()).isEqualTo(RunState.SUCCESS);
        assertThat(events(id)).filteredOn(e -> e.type() == EventType.SUCCEEDED).hasSize(1);
        assertThat(events(id))
                .filteredOn(e -> e.type() == EventType.REPORT_REFUSED)
                .hasSize(2);
    }

    List<String> logTexts(long id) {
        return store.tx(tx -> store.logs().read(tx, id, 0, 100)).stream()
                .map(l -> l.stream() + ":" + l.text())
                .toList();
    }

    @Test
    void the_output_a_completion_carries_is_stored_with_its_outcome_once_and_not_when_refused() throws Exception {
        List<WorkItem> items = floodClaimed(30);
        List<Completion> reports = new ArrayList<>();
        for (int i = 0; i < items.size(); i++) {
            WorkItem item = items.get(i);
            dispatcher.log(new LogChunk("e1", item.ref(), "stdout", List.of("shipped before")));
            List<LogChunk> tail = List.of(
                    new LogChunk("e1", item.ref(), "stdout", List.of("last of " + item.instanceId(), "end")),
                    new LogChunk("e1", item.ref(), "stderr", List.of("warning")));
            // Successes go in groups, failures the single way: both store the output they carry.
            reports.add(
                    i % 3 == 0
                            ? new Completion("e1", item.ref(), false, FailureKind.EXIT_CODE, 1, null, tail)
                            : new Completion("e1", item.ref(), true, null, 0, null, tail));
        }
        WorkItem twice = items.get(1);
        reports.add(reports.get(1)); // the same report again
        reports.add(new Completion(
                "stranger",
                items.get(2).ref(),
                true,
                null,
                0,
                null,
                List.of(new LogChunk("stranger", items.get(2).ref(), "stdout", List.of("not mine")))));

        List<ReportAnswer> answers = completeAtOnce(reports);

        assertThat(answers.subList(0, 31))
                .as("each run's report once (of the two copies, one)")
                .filteredOn(ReportAnswer::accepted)
                .hasSize(30);
        assertThat(answers.getLast().accepted()).isFalse();
        for (WorkItem item : items) {
            long id = item.instanceId();
            assertThat(instance(id).state()).isIn(RunState.SUCCESS, RunState.FAILED, RunState.RETRYING);
            assertThat(logTexts(id))
                    .as("run %d", id)
                    .containsExactly("stdout:shipped before", "stdout:last of " + id + "\nend", "stderr:warning");
        }
        assertThat(events(twice.instanceId()))
                .filteredOn(e -> e.type() == EventType.SUCCEEDED)
                .hasSize(1);
    }

    @Test
    void a_start_a_completion_carries_is_recorded_before_its_outcome_and_not_when_refused() throws Exception {
        List<WorkItem> items = floodClaimed(20);
        List<Completion> reports = new ArrayList<>();
        for (int i = 0; i < items.size(); i++) {
            WorkItem item = items.get(i);
            // Successes go in groups, failures the single way: both record the start first.
            Completion c = i % 4 == 0
                    ? new Completion("e1", item.ref(), false, FailureKind.EXIT_CODE, 1, null)
                    : new Completion("e1", item.ref(), true, null, 0, null);
            reports.add(c.withStart(2000 + item.instanceId()));
        }
        WorkItem other = items.get(3);
        reports.add(new Completion("stranger", other.ref(), true, null, 0, null).withStart(7));

        List<ReportAnswer> answers = completeAtOnce(reports);

        assertThat(answers.subList(0, 20))
                .allSatisfy(a -> assertThat(a.accepted()).isTrue());
        assertThat(answers.getLast().accepted()).isFalse();
        for (WorkItem item : items) {
            long id = item.instanceId();
            assertThat(instance(id).pid()).isEqualTo(2000 + id);
            assertThat(instance(id).state()).isIn(RunState.SUCCESS, RunState.FAILED, RunState.RETRYING);
            List<EventType> types = events(id).stream()
                    .map(EventRow::type)
                    .filter(t -> t != EventType.REPORT_REFUSED)
                    .toList();
            assertThat(types)
                    .as("run %d", id)
                    .startsWith(EventType.CREATED, EventType.CLAIMED, EventType.STARTED)
                    .containsOnlyOnce(EventType.STARTED);
            assertThat(events(id))
                    .filteredOn(e -> e.type() == EventType.STARTED)
                    .singleElement()
                    .satisfies(e -> assertThat(e.message()).isEqualTo("pid " + (2000 + id) + " on executor e1"));
        }
        assertThat(events(other.instanceId()))
                .filteredOn(e -> e.type() == EventType.REPORT_REFUSED)
                .hasSize(1);
    }

    @Test
    void starts_reported_together_record_each_pid_once_and_refuse_an_attempt_not_held() throws Exception {
        List<WorkItem> items = floodClaimed(40);
        List<Started> reports = new ArrayList<>();
        for (WorkItem item : items) {
            reports.add(new Started("e1", item.ref(), 1000 + item.instanceId()));
        }
        WorkItem first = items.getFirst();
        reports.add(new Started("e1", first.ref(), 5)); // again, another pid
        reports.add(new Started("stranger", items.get(1).ref(), 6)); // not the holder

        List<ReportAnswer> answers = new ArrayList<>();
        try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<ReportAnswer>> pending = new ArrayList<>();
            for (Started s : reports) {
                pending.add(threads.submit(() -> dispatcher.started(s)));
            }
            for (Future<ReportAnswer> f : pending) {
                answers.add(f.get());
            }
        }

        assertThat(answers.subList(1, 40))
                .allSatisfy(a -> assertThat(a.accepted()).isTrue());
        assertThat(answers.getLast().accepted()).isFalse();
        for (WorkItem item : items.subList(1, 40)) {
            assertThat(instance(item.instanceId()).pid()).isEqualTo(1000 + item.instanceId());
            assertThat(events(item.instanceId()))
                    .filteredOn(e -> e.type() == EventType.STARTED)
                    .singleElement()
                    .satisfies(e ->
                            assertThat(e.message()).isEqualTo("pid " + (1000 + item.instanceId()) + " on executor e1"));
        }
        // The same attempt reporting twice is not refused (it holds the lease), whichever came first; the run holds
        // the pid of the later one, and its start is told once.
        assertThat(instance(first.instanceId()).pid()).isIn(5L, 1000 + first.instanceId());
        assertThat(events(first.instanceId()))
                .filteredOn(e -> e.type() == EventType.STARTED)
                .singleElement()
                .satisfies(e -> assertThat(e.message())
                        .isEqualTo("pid " + instance(first.instanceId()).pid() + " on executor e1"));
        assertThat(events(items.get(1).instanceId()))
                .filteredOn(e -> e.type() == EventType.REPORT_REFUSED)
                .hasSize(1);
    }

    @Test
    void log_chunks_sent_together_are_each_stored_in_order_and_a_stranger_s_refused() throws Exception {
        List<WorkItem> items = floodClaimed(20);
        List<LogChunk> chunks = new ArrayList<>();
        for (WorkItem item : items) {
            chunks.add(new LogChunk("e1", item.ref(), "stdout", List.of("line 1 of " + item.instanceId(), "line 2")));
        }
        chunks.add(new LogChunk("stranger", items.getFirst().ref(), "stdout", List.of("not mine")));

        List<ReportAnswer> answers = new ArrayList<>();
        try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<ReportAnswer>> pending = new ArrayList<>();
            for (LogChunk c : chunks) {
                pending.add(threads.submit(() -> dispatcher.log(c)));
            }
            for (Future<ReportAnswer> f : pending) {
                answers.add(f.get());
            }
        }

        assertThat(answers.subList(0, 20))
                .allSatisfy(a -> assertThat(a.accepted()).isTrue());
        assertThat(answers.getLast().accepted()).isFalse();
        for (WorkItem item : items) {
            List<String> texts = store.tx(tx -> store.logs().read(tx, item.instanceId(), 0, 100)).stream()
                    .map(l -> l.text())
                    .toList();
            assertThat(texts).containsExactly("line 1 of " + item.instanceId() + "\nline 2");
        }
    }

    @Test
    void a_success_that_frees_a_slot_still_admits_the_queued_run() throws Exception {
        node.tasks().create(task("one-at-a-time", event(), "true", Map.of("overflow", "QUEUE")), "test");
        long first = node.tasks().trigger("one-at-a-time", Map.of(), Cause.EVENT, "test");
        long second = node.tasks().trigger("one-at-a-time", Map.of(), Cause.EVENT, "test");
        assertThat(instance(second).state()).isEqualTo(RunState.BLOCKED);
        WorkItem item = claim(1).getFirst();
        assertThat(item.instanceId()).isEqualTo(first);

        assertThat(completeAtOnce(List.of(new Completion("e1", item.ref(), true, null, 0, null))))
                .singleElement()
                .satisfies(a -> assertThat(a.accepted()).isTrue());

        // Released in the same transaction as the success: no loop tick needed.
        assertThat(instance(first).state()).isEqualTo(RunState.SUCCESS);
        assertThat(instance(second).state()).isEqualTo(RunState.READY);
    }

    /**
     * Triggers sent at the same time are written in groups: each still gets a run of its own with its parameters and
     * its CREATED event, and a trigger whose parameters do not render is refused alone, writing nothing.
     */
    @Test
    void triggers_sent_at_once_each_get_their_own_run_and_a_bad_one_is_refused_alone() throws Exception {
        node.tasks().create(task("burst", event(), "echo {{params.day}}", Map.of("overflow", "ALLOW")), "test");
        long first = node.tasks()
                .trigger("burst", Map.of("day", "d-first"), Cause.EVENT, "test"); // learns it admits by slot alone
        int n = 40;
        List<Future<Long>> good = new ArrayList<>();
        List<Future<Long>> bad = new ArrayList<>();
        try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int i = 0; i < n; i++) {
                String day = "d" + i;
                good.add(threads.submit(() -> node.tasks().trigger("burst", Map.of("day", day), Cause.EVENT, "test")));
                if (i % 10 == 0) {
                    bad.add(threads.submit(() -> node.tasks().trigger("burst", Map.of(), Cause.EVENT, "test")));
                }
            }
        }
        Map<Long, String> dayOf = new HashMap<>();
        for (int i = 0; i < n; i++) {
            dayOf.put(good.get(i).get(), "d" + i);
        }
        assertThat(dayOf).hasSize(n).doesNotContainKey(first);
        for (Map.Entry<Long, String> e : dayOf.entrySet()) {
            RunRow run = store.tx(tx -> store.runs().find(tx, e.getKey())).orElseThrow();
            assertThat(run.state()).isEqualTo(RunState.READY);
            assertThat(run.params()).containsEntry("day", e.getValue());
            List<EventRow> events = store.tx(tx -> store.events().forRun(tx, e.getKey(), 0, 100));
            assertThat(events).extracting(EventRow::type).containsExactly(EventType.CREATED);
        }
        for (Future<Long> f : bad) {
            assertThat(catchThrowable(f::get))
                    .cause()
                    .isInstanceOf(ValidationException.class)
                    .hasMessageContaining("params.day");
        }
        long runs = store.tx(
                tx -> tx.queryOne("SELECT COUNT(*) AS n FROM ax_instance WHERE task_name = 'burst'", r -> r.lng("n"))
                        .orElseThrow());
        assertThat(runs).isEqualTo(n + 1);
    }

    /**
     * A task whose triggers were written together and that now needs a decision under its lock (a limit, after an
     * edit) has its next trigger taken the single way, which counts: the run waits BLOCKED behind the active one. A
     * deleted one is not found.
     */
    @Test
    void a_trigger_of_a_task_that_no_longer_admits_by_its_slot_alone_is_decided_under_its_lock() {
        node.tasks().create(task("switch", event(), "true", Map.of("overflow", "ALLOW")), "test");
        node.tasks().trigger("switch", Map.of(), Cause.EVENT, "test");
        long active = node.tasks().trigger("switch", Map.of(), Cause.EVENT, "test");
        node.tasks().update("switch", task("switch", event(), "true", Map.of("maxConcurrency", 2)), "test");
        long third = node.tasks().trigger("switch", Map.of(), Cause.EVENT, "test");
        assertThat(store.tx(tx -> store.runs().find(tx, active)).orElseThrow().state())
                .isEqualTo(RunState.READY);
        assertThat(store.tx(tx -> store.runs().find(tx, third)).orElseThrow().state())
                .isEqualTo(RunState.BLOCKED);

        node.tasks().create(task("gone", event(), "true", Map.of("overflow", "ALLOW")), "test");
        node.tasks().trigger("gone", Map.of(), Cause.EVENT, "test");
        node.tasks().trigger("gone", Map.of(), Cause.EVENT, "test");
        node.tasks().delete("gone", "test");
        assertThatThrownBy(() -> node.tasks().trigger("gone", Map.of(), Cause.EVENT, "test"))
                .isInstanceOf(NotFoundException.class)
                .hasMessageContaining("gone");
    }

    @Test
    void polls_that_claim_at_once_share_transactions_and_each_run_goes_to_one_executor_once() throws Exception {
        node.tasks().create(task("flood", event(), "true", Map.of("overflow", "ALLOW")), "test");
        for (int i = 0; i < 200; i++) {
            node.tasks().trigger("flood", Map.of("i", i), Cause.EVENT, "test");
        }
        int executors = 8;
        for (int e = 2; e <= executors; e++) {
            dispatcher.register(new Register("e" + e, "e" + e + "-s1", List.of("default"), "test", e, "t", List.of()));
        }
        Map<String, List<WorkItem>> got = new ConcurrentHashMap<>();
        List<Integer> pollSizes = Collections.synchronizedList(new ArrayList<>());
        try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<?>> done = new ArrayList<>();
            for (int e = 1; e <= executors; e++) {
                String id = "e" + e;
                done.add(threads.submit(() -> {
                    for (int round = 0; round < 20; round++) {
                        List<WorkItem> items = dispatcher.poll(new Poll(id, List.of("default"), 17, 0));
                        pollSizes.add(items.size());
                        got.computeIfAbsent(id, k -> Collections.synchronizedList(new ArrayList<>()))
                                .addAll(items);
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get();
            }
        }

        assertThat(pollSizes).allSatisfy(n -> assertThat(n).isLessThanOrEqualTo(17));
        List<Long> ids = got.values().stream()
                .flatMap(List::stream)
                .map(WorkItem::instanceId)
                .toList();
        assertThat(ids).hasSize(200).doesNotHaveDuplicates();
        got.forEach((executor, items) -> items.forEach(item -> {
            RunRow run = instance(item.instanceId());
            assertThat(run.state()).isEqualTo(RunState.RUNNING);
            assertThat(run.executorId()).isEqualTo(executor);
            assertThat(run.attempt()).isEqualTo(item.ref().attempt());
            assertThat(events(item.instanceId()))
                    .filteredOn(ev -> ev.type() == EventType.CLAIMED)
                    .singleElement()
                    .satisfies(ev -> assertThat(ev.actor()).isEqualTo("executor:" + executor));
        }));
    }
}
