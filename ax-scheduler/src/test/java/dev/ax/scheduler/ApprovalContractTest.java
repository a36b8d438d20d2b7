package dev.ax.scheduler;

import static dev.ax.scheduler.TestNodes.event;
import static dev.ax.scheduler.TestNodes.task;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.ax.domain.access.Principal;
import dev.ax.domain.access.Role;
import dev.ax.domain.protocol.Completion;
import dev.ax.domain.protocol.Heartbeat;
import dev.ax.domain.protocol.Poll;
import dev.ax.domain.protocol.Register;
import dev.ax.domain.protocol.Started;
import dev.ax.domain.protocol.WorkItem;
import dev.ax.domain.run.Cause;
import dev.ax.domain.run.EventType;
import dev.ax.domain.run.RunState;
import dev.ax.store.DbConfig;
import dev.ax.store.EventRow;
import dev.ax.store.RunRow;
import dev.ax.store.Store;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Approval gates: preview first, allowed people only, four eyes, expiry — each decision on record. */
abstract class ApprovalContractTest {
    static Principal who(String name, String role) {
        return Principal.of(name, Role.ofToken(role).orElseThrow());
    }

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

    List<EventRow> events(long id) {
        return store.tx(tx -> store.events().forRun(tx, id, 0, 100));
    }

    List<WorkItem> poll() throws InterruptedException {
        return node.dispatcher().poll(new Poll("e1", List.of("default"), 5, 300));
    }

    @Test
    void a_preview_runs_first_and_only_an_allowed_approver_lets_the_run_start() throws Exception {
        node.tasks()
                .create(
                        task(
                                "fix_rows",
                                event(),
                                "echo fixing",
                                Map.of(
                                        "approval",
                                        Map.of(
                                                "approvers",
                                                List.of("alice"),
                                                "preview",
                                                Map.of("type", "shell", "command", "echo 1234 rows will change")))),
                        "test");
        long id = node.tasks().trigger("fix_rows", Map.of(), Cause.MANUAL, "bob");
        assertThat(row(id).state()).isEqualTo(RunState.WAITING_APPROVAL);
        long previewId = (Long) ((Number) events(id).stream()
                        .filter(e -> e.type() == EventType.APPROVAL_REQUESTED)
                        .findFirst()
                        .orElseThrow()
                        .data()
                        .get("previewInstanceId"))
                .longValue();

        List<WorkItem> work = poll();
        assertThat(work).singleElement().satisfies(w -> {
            assertThat(w.instanceId()).isEqualTo(previewId);
            assertThat(w.command()).isEqualTo("echo 1234 rows will change");
        });
        node.dispatcher().complete(new Completion("e1", work.getFirst().ref(), true, null, 0, null));
        assertThat(row(previewId).cause()).isEqualTo(Cause.PREVIEW);
        assertThat(row(previewId).parentId()).isEqualTo(id);
        assertThat(poll()).isEmpty();

        assertThatThrownBy(() -> node.approvals().approve(id, who("mallory", "operator"), "looks fine"))
                .isInstanceOf(ForbiddenException.class)
                .hasMessageContaining("approvers: alice");
        assertThat(row(id).state()).isEqualTo(RunState.WAITING_APPROVAL);

        assertThat(node.approvals()
                        .approve(id, who("alice", "viewer"), "1234 is expected")
                        .state())
                .isEqualTo(RunState.READY);
        assertThat(poll())
                .singleElement()
                .satisfies(w -> assertThat(w.command()).isEqualTo("echo fixing"));
        assertThat(events(id))
                .filteredOn(e -> e.type() == EventType.APPROVED)
                .singleElement()
                .satisfies(e -> {
                    assertThat(e.actor()).isEqualTo("alice");
                    assertThat(e.message()).contains("1234 is expected");
                });
    }

    @Test
    void four_eyes_refuses_the_person_who_triggered_the_run() {
        node.tasks()
                .create(
                        task(
                                "payout",
                                event(),
                                "true",
                                Map.of("approval", Map.of("approvers", List.of("operator"), "fourEyes", true))),
                        "test");
        long id = node.tasks().trigger("payout", Map.of(), Cause.MANUAL, "carol");
        assertThatThrownBy(() -> node.approvals().approve(id, who("carol", "operator"), null))
                .isInstanceOf(ForbiddenException.class)
                .hasMessageContaining("four-eyes");
        assertThat(node.approvals().approve(id, who("dave", "operator"), null).state())
                .isEqualTo(RunState.READY);
    }

    @Test
    void an_undecided_request_expires_and_the_run_is_canceled() {
        node.tasks().create(task("gated", event(), "true", Map.of("approval", Map.of("timeoutSeconds", 1))), "test");
        long id = node.tasks().trigger("gated", Map.of(), Cause.MANUAL, "bob");
        await().atMost(Duration.ofSeconds(10)).until(() -> node.housekeeping().expireApprovals() == 1);
        assertThat(row(id).state()).isEqualTo(RunState.CANCELED);
        assertThat(events(id)).extracting(EventRow::type).contains(EventType.APPROVAL_EXPIRED);
        assertThatThrownBy(() -> node.approvals().approve(id, who("alice", "admin"), null))
                .isInstanceOf(ConflictException.class);
    }

    @Test
    void a_rejection_cancels_the_run_and_the_next_waiting_run_asks_for_approval() {
        node.tasks().create(task("gated", event(), "true", Map.of("approval", Map.of())), "test");
        long first = node.tasks().trigger("gated", Map.of(), Cause.MANUAL, "bob");
        long second = node.tasks().trigger("gated", Map.of(), Cause.MANUAL, "bob");
        assertThat(row(second).state()).isEqualTo(RunState.BLOCKED);
        assertThat(node.approvals()
                        .reject(first, who("alice", "admin"), "not today")
                        .state())
                .isEqualTo(RunState.CANCELED);
        assertThat(events(first))
                .filteredOn(e -> e.type() == EventType.REJECTED)
                .singleElement()
                .satisfies(e -> assertThat(e.message()).contains("not today"));
        assertThat(row(second).state()).isEqualTo(RunState.WAITING_APPROVAL);
        assertThat(events(second)).extracting(EventRow::type).contains(EventType.APPROVAL_REQUESTED);
    }

    @Test
    void a_running_job_can_ask_for_approval_and_goes_on_when_approved() throws Exception {
        node.tasks().create(task("fix", event(), "sleep 1", null), "test");
        long id = node.tasks().trigger("fix", Map.of(), Cause.MANUAL, "bob");
        WorkItem w = poll().getFirst();
        assertThat(node.approvals()
                        .requestMidRun(id, "job", "1234 rows will change")
                        .state())
                .isEqualTo(RunState.WAITING_APPROVAL);
        // The process keeps running meanwhile: its lease is renewed, nothing is abandoned.
        var hb = node.dispatcher().heartbeat(new Heartbeat("e1", "s1", List.of(w.ref())));
        assertThat(hb.abandon()).isEmpty();
        assertThatThrownBy(() -> node.approvals().approve(id, who("vic", "viewer"), null))
                .isInstanceOf(ForbiddenException.class);
        assertThat(node.approvals().approve(id, who("olga", "operator"), "go").state())
                .isEqualTo(RunState.RUNNING);
        assertThat(node.dispatcher()
                        .complete(new Completion("e1", w.ref(), true, null, 0, null))
                        .accepted())
                .isTrue();
        assertThat(row(id).state()).isEqualTo(RunState.SUCCESS);
        assertThat(events(id))
                .extracting(EventRow::type)
                .containsSubsequence(
                        EventType.CLAIMED, EventType.APPROVAL_REQUESTED, EventType.APPROVED, EventType.SUCCEEDED);
    }

    @Test
    void a_started_report_that_arrives_while_the_job_waits_mid_run_is_recorded_not_refused() throws Exception {
        node.tasks().create(task("fix", event(), "sleep 1", null), "test");
        long id = node.tasks().trigger("fix", Map.of(), Cause.MANUAL, "bob");
        WorkItem w = poll().getFirst();
        // The job asked for approval before the executor's "started" report got through (a fast script, a busy server).
        node.approvals().requestMidRun(id, "job", "1234 rows will change");
        assertThat(node.dispatcher().started(new Started("e1", w.ref(), 4321)).accepted())
                .isTrue();
        assertThat(node.dispatcher()
                        .started(new Started("stranger", w.ref(), 1))
                        .accepted())
                .isFalse();
        assertThat(row(id).pid()).isEqualTo(4321);
        assertThat(row(id).state()).isEqualTo(RunState.WAITING_APPROVAL);
        assertThat(node.approvals().approve(id, who("olga", "operator"), "go").state())
                .isEqualTo(RunState.RUNNING);
        assertThat(node.dispatcher()
                        .complete(new Completion("e1", w.ref(), true, null, 0, null))
                        .accepted())
                .isTrue();
        assertThat(events(id))
                .extracting(EventRow::type)
                .containsSubsequence(
                        EventType.CLAIMED,
                        EventType.APPROVAL_REQUESTED,
                        EventType.STARTED,
                        EventType.APPROVED,
                        EventType.SUCCEEDED);
    }

    @Test
    void a_rejected_mid_run_request_stops_the_job() throws Exception {
        node.tasks().create(task("fix", event(), "sleep 1", null), "test");
        long id = node.tasks().trigger("fix", Map.of(), Cause.MANUAL, "bob");
        WorkItem w = poll().getFirst();
        node.approvals().requestMidRun(id, "job", null);
        assertThat(node.approvals()
                        .reject(id, who("olga", "admin"), "too many rows")
                        .state())
                .isEqualTo(RunState.CANCELED);
        var hb = node.dispatcher().heartbeat(new Heartbeat("e1", "s1", List.of(w.ref())));
        assertThat(hb.abandon()).containsExactly(w.ref());
    }
}
