package dev.ax.scheduler;

import static dev.ax.scheduler.TestNodes.cron;
import static dev.ax.scheduler.TestNodes.task;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ax.domain.protocol.Completion;
import dev.ax.domain.protocol.Poll;
import dev.ax.domain.protocol.Register;
import dev.ax.domain.protocol.WorkItem;
import dev.ax.domain.run.Cause;
import dev.ax.domain.run.FailureKind;
import dev.ax.domain.run.RunState;
import dev.ax.domain.task.Action;
import dev.ax.domain.task.TaskDefinition;
import dev.ax.domain.task.ValidationException;
import dev.ax.store.DbConfig;
import dev.ax.store.RunRow;
import dev.ax.store.Store;
import dev.ax.store.TaskRow;
import dev.ax.store.TaskVersionRow;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Test runs of a draft: once, marked as a test, nothing about the saved task changed. */
abstract class TestRunContractTest {
    Store store;
    SchedulerNode node;

    abstract DbConfig config();

    @BeforeEach
    void open() {
        store = Store.open(config());
        node = TestNodes.node(store, "n1");
        node.dispatcher()
                .register(new Register(
                        "exec", UUID.randomUUID().toString(), List.of("default"), "test", 1, "test", List.of()));
    }

    @AfterEach
    void close() {
        node.close();
        store.close();
    }

    @Test
    void a_draft_of_a_saved_task_runs_once_as_a_test_and_the_task_is_unchanged() {
        node.tasks().create(task("report", cron("0 2 * * *"), "echo saved", null), "alice");
        TaskRow before = saved("report");
        var started = node.testRuns()
                .run(
                        "report",
                        task(
                                "report",
                                cron("0 3 * * *"),
                                "echo draft {{date}}",
                                Map.of("notifyOnFailure", List.of(), "maxRetries", 0)),
                        Map.of(),
                        "bob");

        RunRow run = instance(started.instanceId());
        assertThat(run.cause()).isEqualTo(Cause.TEST);
        assertThat(run.taskId()).isEqualTo(before.id());
        assertThat(run.taskVersion()).isNegative().isEqualTo(started.draftVersion());
        assertThat(run.actor()).isEqualTo("bob");
        List<WorkItem> work = poll();
        assertThat(work).singleElement().satisfies(w -> assertThat(w.command()).startsWith("echo draft 20"));
        complete(work.getFirst(), false);
        assertThat(instance(started.instanceId()).state()).isEqualTo(RunState.FAILED);
        assertThat(poll()).as("once: nothing more to run").isEmpty();

        TaskRow after = saved("report");
        assertThat(after).isEqualTo(before);
        List<TaskVersionRow> versions = store.tx(tx -> store.tasks().versions(tx, "report", 10));
        assertThat(versions)
                .singleElement()
                .satisfies(v -> assertThat(v.version()).isEqualTo(1));
        // The run records exactly what it ran.
        TaskDefinition ran = store.tx(tx -> store.tasks().definitionAt(tx, before.id(), started.draftVersion()))
                .orElseThrow();
        assertThat(ran.action()).isEqualTo(new Action.Shell("echo draft {{date}}", Map.of(), null, "default"));
        // No follow-up was queued for the failure of a test.
        assertThat(count("ax_follow_up")).isZero();
    }

    @Test
    void a_draft_of_a_task_not_saved_yet_runs_and_creates_no_task() {
        var first = node.testRuns()
                .run("brand_new", task("brand_new", cron("0 2 * * *"), "echo hi", null), Map.of(), "bob");
        var second = node.testRuns()
                .run("brand_new", task("brand_new", cron("0 2 * * *"), "echo again", null), Map.of(), "bob");
        assertThat(first.taskExists()).isFalse();
        assertThat(second.draftVersion()).isLessThan(first.draftVersion());
        Optional<TaskRow> saved = store.tx(tx -> store.tasks().find(tx, "brand_new"));
        List<TaskVersionRow> history = store.tx(tx -> store.tasks().versions(tx, "brand_new", 10));
        assertThat(saved).isEmpty();
        assertThat(history).isEmpty();
        List<WorkItem> work = poll();
        assertThat(work).extracting(WorkItem::command).containsExactlyInAnyOrder("echo hi", "echo again");
        work.forEach(w -> complete(w, true));
        assertThat(instance(first.instanceId()).state()).isEqualTo(RunState.SUCCESS);
        // Saving the task afterwards starts at version 1 as usual.
        assertThat(node.tasks()
                        .create(task("brand_new", cron("0 2 * * *"), "echo hi", null), "bob")
                        .task()
                        .version())
                .isEqualTo(1);
    }

    @Test
    void a_bad_draft_is_refused_with_the_field_and_nothing_runs() {
        node.tasks().create(task("report", cron("0 2 * * *"), "echo saved", null), "alice");
        assertThatThrownBy(() -> node.testRuns()
                        .run("report", task("report", cron("0 99 * * *"), "echo x", null), Map.of(), "bob"))
                .isInstanceOfSatisfying(
                        ValidationException.class,
                        e -> assertThat(e.errors())
                                .anySatisfy(f -> assertThat(f.field()).isEqualTo("trigger.expression")));
        assertThatThrownBy(() -> node.testRuns()
                        .run("report", task("other", cron("0 2 * * *"), "echo x", null), Map.of(), "bob"))
                .isInstanceOfSatisfying(
                        ValidationException.class,
                        e -> assertThat(e.errors())
                                .anySatisfy(f -> assertThat(f.field()).isEqualTo("taskName")));
        assertThatThrownBy(() -> node.testRuns()
                        .run("report", task("report", cron("0 2 * * *"), "echo {{params.day}}", null), Map.of(), "bob"))
                .isInstanceOfSatisfying(
                        ValidationException.class,
                        e -> assertThat(e.errors())
                                .anySatisfy(f -> assertThat(f.field()).isEqualTo("params.day")));
        assertThat(count("ax_instance")).isZero();
        assertThat(count("ax_task_version")).isEqualTo(1);
    }

    TaskRow saved(String name) {
        return store.tx(tx -> store.tasks().find(tx, name).orElseThrow());
    }

    int count(String table) {
        return store.tx(tx -> tx.queryOne("SELECT COUNT(*) AS n FROM " + table, r -> r.integer("n"))
                .orElse(0));
    }

    RunRow instance(long id) {
        return store.tx(tx -> store.runs().find(tx, id).orElseThrow());
    }

    List<WorkItem> poll() {
        try {
            return node.dispatcher().poll(new Poll("exec", List.of("default"), 100, 0));
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }

    void complete(WorkItem w, boolean ok) {
        node.dispatcher()
                .complete(new Completion("exec", w.ref(), ok, ok ? null : FailureKind.EXIT_CODE, ok ? 0 : 1, null));
    }
}
