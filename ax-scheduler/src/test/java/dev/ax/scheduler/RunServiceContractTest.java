package dev.ax.scheduler;

import static dev.ax.scheduler.TestNodes.event;
import static dev.ax.scheduler.TestNodes.task;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ax.domain.protocol.Completion;
import dev.ax.domain.protocol.Heartbeat;
import dev.ax.domain.protocol.Poll;
import dev.ax.domain.protocol.Register;
import dev.ax.domain.protocol.WorkItem;
import dev.ax.domain.run.Cause;
import dev.ax.domain.run.EventType;
import dev.ax.domain.run.FailureKind;
import dev.ax.domain.run.RunState;
import dev.ax.store.DbConfig;
import dev.ax.store.EventRow;
import dev.ax.store.RunRow;
import dev.ax.store.Store;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Operator actions: each a state-machine move with its actor, each freeing its concurrency slot. */
abstract class RunServiceContractTest {
    Store store;
    SchedulerNode node;

    abstract DbConfig config();

    @BeforeEach
    void open() {
        store = Store.open(config());
        node = TestNodes.node(store, "n1");
        node.dispatcher().register(new Register("e1", "s1", List.of("default"), "test", 1, "t", List.of()));
    }

    @AfterEach
    void close() {
        node.close();
        store.close();
    }

    RunRow row(long id) {
        return store.tx(tx -> store.runs().find(tx, id).orElseThrow());
    }

    WorkItem claim() throws InterruptedException {
        List<WorkItem> items = node.dispatcher().poll(new Poll("e1", List.of("default"), 1, 1000));
        assertThat(items).hasSize(1);
        return items.getFirst();
    }

    @Test
    void terminating_a_running_run_tells_its_executor_and_frees_the_slot() throws Exception {
        node.tasks().create(task("job", event(), "sleep 60", null), "test");
        long first = node.tasks().trigger("job", Map.of(), Cause.EVENT, "test");
        long second = node.tasks().trigger("job", Map.of(), Cause.EVENT, "test");
        WorkItem w = claim();
        assertThat(row(second).state()).isEqualTo(RunState.BLOCKED);

        RunRow t = node.runs().terminate(first, "alice", "wrong parameters");
        assertThat(t.state()).isEqualTo(RunState.TERMINATED);
        assertThat(node.dispatcher()
                        .heartbeat(new Heartbeat("e1", "s1", List.of(w.ref())))
                        .abandon())
                .containsExactly(w.ref());
        assertThat(row(second).state()).isEqualTo(RunState.READY);
        List<EventRow> events = store.tx(tx -> store.events().forRun(tx, first, 0, 50));
        assertThat(events)
                .filteredOn(e -> e.type() == EventType.TERMINATED)
                .singleElement()
                .satisfies(e -> assertThat(e.actor()).isEqualTo("alice"))
                .satisfies(e -> assertThat(e.message()).contains("wrong parameters"));
        assertThat(node.dispatcher()
                        .complete(new Completion("e1", w.ref(), true, null, 0, "late"))
                        .accepted())
                .isFalse();
    }

    @Test
    void terminate_refuses_a_waiting_run_and_cancel_refuses_a_running_one() throws Exception {
        node.tasks().create(task("job", event(), "true", null), "test");
        long first = node.tasks().trigger("job", Map.of(), Cause.EVENT, "test");
        long second = node.tasks().trigger("job", Map.of(), Cause.EVENT, "test");
        claim();
        assertThatThrownBy(() -> node.runs().terminate(second, "bob", null))
                .isInstanceOf(ConflictException.class)
                .hasMessageContaining("cancel it instead");
        assertThatThrownBy(() -> node.runs().cancel(first, "bob", null))
                .isInstanceOf(ConflictException.class)
                .hasMessageContaining("terminate it instead");
        assertThat(node.runs().cancel(second, "bob", "not needed").state()).isEqualTo(RunState.CANCELED);
    }

    @Test
    void retry_makes_a_new_chained_run_with_the_same_version_and_parameters() throws Exception {
        node.tasks().create(task("job", event(), "echo {{params.day}}", null), "test");
        long failed = node.tasks().trigger("job", Map.of("day", "2026-11-28"), Cause.EVENT, "test");
        WorkItem w = claim();
        node.dispatcher().complete(new Completion("e1", w.ref(), false, FailureKind.EXIT_CODE, 1, "boom"));
        node.tasks().update("job", task("job", event(), "echo v2 {{params.day}}", null), "test");

        long retry = node.runs().retry(failed, "carol");
        RunRow r = row(retry);
        assertThat(r.cause()).isEqualTo(Cause.RETRY);
        assertThat(r.parentId()).isEqualTo(failed);
        assertThat(r.rootId()).isEqualTo(failed);
        assertThat(r.taskVersion()).isEqualTo(1);
        assertThat(r.params()).containsEntry("day", "2026-11-28");
        assertThat(claim().command()).isEqualTo("echo 2026-11-28");

        assertThat(row(node.runs().rerun(failed, "carol")).taskVersion()).isEqualTo(2);
        assertThat(row(failed).state()).isEqualTo(RunState.FAILED);
    }

    @Test
    void retry_refuses_a_successful_run_and_any_unfinished_one() throws Exception {
        node.tasks().create(task("job", event(), "true", Map.of("overflow", "ALLOW")), "test");
        long ok = node.tasks().trigger("job", Map.of(), Cause.EVENT, "test");
        WorkItem w = claim();
        node.dispatcher().complete(new Completion("e1", w.ref(), true, null, 0, null));
        long waiting = node.tasks().trigger("job", Map.of(), Cause.EVENT, "test");
        assertThatThrownBy(() -> node.runs().retry(ok, "dave"))
                .isInstanceOf(ConflictException.class)
                .hasMessageContaining("re-run");
        assertThatThrownBy(() -> node.runs().rerun(waiting, "dave"))
                .isInstanceOf(ConflictException.class)
                .hasMessageContaining("not finished");
        assertThatThrownBy(() -> node.runs().retry(999_999, "dave")).isInstanceOf(NotFoundException.class);
    }
}
