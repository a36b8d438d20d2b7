package dev.ax.scheduler;

import static dev.ax.scheduler.TestNodes.cron;
import static dev.ax.scheduler.TestNodes.event;
import static dev.ax.scheduler.TestNodes.task;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.domain.protocol.Completion;
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
import dev.ax.store.RunStore.RunFilter;
import dev.ax.store.Store;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Seed §4.4: a failed upstream pauses its downstream and triggers its compensation, once, all on record. */
abstract class FollowUpContractTest {
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

    long failOnce(String taskName, Map<String, Object> params) throws InterruptedException {
        long id = node.tasks().trigger(taskName, params, Cause.EVENT, "test");
        WorkItem w = node.dispatcher()
                .poll(new Poll("e1", List.of("default"), 1, 1000))
                .getFirst();
        assertThat(w.instanceId()).isEqualTo(id);
        node.dispatcher().complete(new Completion("e1", w.ref(), false, FailureKind.EXIT_CODE, 2, "upstream broke"));
        return id;
    }

    List<EventRow> events(long id) {
        return store.tx(tx -> store.events().forRun(tx, id, 0, 100));
    }

    @Test
    void a_failed_upstream_pauses_its_downstream_and_triggers_its_compensation_once() throws Exception {
        node.tasks().create(task("report", cron("0 2 * * *"), "true", null), "test");
        node.tasks().create(task("compensate", event(), "echo {{params.day}} {{params.failed}}", null), "test");
        node.tasks()
                .create(
                        task(
                                "sync",
                                event(),
                                "exit 2",
                                Map.of(
                                        "onFailedActions",
                                        List.of(
                                                Map.of("type", "pause", "tasks", List.of("report")),
                                                Map.of(
                                                        "type",
                                                        "trigger",
                                                        "taskName",
                                                        "compensate",
                                                        "params",
                                                        Map.of("day", "{{date}}", "failed", "{{instanceId}}"))))),
                        "test");

        long failed = failOnce("sync", Map.of());
        assertThat(store.tx(tx -> store.runs().find(tx, failed).orElseThrow()).state())
                .isEqualTo(RunState.FAILED);

        assertThat(node.housekeeping().followUps()).isEqualTo(2);
        assertThat(node.housekeeping().followUps()).isZero();

        assertThat(store.tx(tx -> store.tasks().find(tx, "report").orElseThrow())
                        .paused())
                .isTrue();
        List<RunRow> compensations = store.tx(
                tx -> store.runs().list(tx, new RunFilter("compensate", null, null, null), Long.MAX_VALUE, 10));
        assertThat(compensations).singleElement().satisfies(c -> {
            assertThat(c.cause()).isEqualTo(Cause.COMPENSATION);
            assertThat(c.parentId()).isEqualTo(failed);
            assertThat(c.rootId()).isEqualTo(failed);
            assertThat(c.params()).containsEntry("failed", Long.toString(failed));
        });
        assertThat(events(failed))
                .extracting(EventRow::type)
                .containsSubsequence(EventType.FAILED, EventType.FOLLOW_UP_DONE, EventType.FOLLOW_UP_DONE);
        assertThat(events(failed))
                .filteredOn(e -> e.type() == EventType.FOLLOW_UP_DONE)
                .extracting(EventRow::message)
                .anySatisfy(m -> assertThat(m).contains("paused report"))
                .anySatisfy(m -> assertThat(m)
                        .contains("triggered compensation task compensate as run "
                                + compensations.getFirst().id()));
    }

    @Test
    void a_follow_up_that_cannot_be_carried_out_is_recorded_as_failed() throws Exception {
        node.tasks()
                .create(
                        task(
                                "sync",
                                event(),
                                "exit 2",
                                Map.of(
                                        "onFailedActions",
                                        List.of(Map.of("type", "trigger", "taskName", "no_such_task")))),
                        "test");
        long failed = failOnce("sync", Map.of());
        node.housekeeping().followUps();
        assertThat(events(failed))
                .filteredOn(e -> e.type() == EventType.FOLLOW_UP_FAILED)
                .singleElement()
                .satisfies(e -> assertThat(e.message()).contains("no_such_task does not exist"));
    }

    @Test
    void retries_come_first_follow_ups_only_after_the_last_attempt() throws Exception {
        node.tasks().create(task("down", event(), "true", null), "test");
        node.tasks()
                .create(
                        task(
                                "sync",
                                event(),
                                "exit 2",
                                Map.of(
                                        "maxRetries",
                                        1,
                                        "retryIntervalSeconds",
                                        0,
                                        "onFailedActions",
                                        List.of(Map.of("type", "pause", "tasks", List.of("down"))))),
                        "test");
        long id = failOnce("sync", Map.of());
        assertThat(store.tx(tx -> store.runs().find(tx, id).orElseThrow()).state())
                .isEqualTo(RunState.RETRYING);
        assertThat(node.housekeeping().followUps()).isZero();
        assertThat(store.tx(tx -> store.tasks().find(tx, "down").orElseThrow()).paused())
                .isFalse();
    }
}
