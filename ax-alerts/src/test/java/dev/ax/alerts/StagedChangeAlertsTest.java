package dev.ax.alerts;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.domain.run.EventType;
import dev.ax.scheduler.Canaries;
import dev.ax.store.EventRow;
import dev.ax.store.TestDatabases;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Alerts of staged changes: an automatic canary rollback is alerted, a manual one and a failed test run are not. */
class StagedChangeAlertsTest {
    Rig rig;

    @AfterEach
    void close() {
        if (rig != null) {
            rig.close();
        }
    }

    static Map<String, Object> task(String command) {
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("taskName", "sync");
        json.put("trigger", Map.of("type", "event"));
        json.put("action", Map.of("type", "shell", "command", command));
        json.put("policy", Map.of("notifyOnFailure", List.of("hook"), "overflow", "ALLOW"));
        return json;
    }

    @Test
    void a_failed_test_run_of_a_draft_is_not_alerted() {
        rig = new Rig(TestDatabases.h2(), Rig::hookConfig);
        rig.node.tasks().create(task("true"), "alice");
        long id = rig.node
                .testRuns()
                .run("sync", task("exit 1"), Map.of(), "alice")
                .instanceId();
        rig.finish(id, false, "draft failed");
        rig.pump();
        assertThat(rig.received).isEmpty();
    }

    @Test
    void an_automatic_rollback_is_alerted_once_and_a_manual_one_not_at_all() {
        rig = new Rig(TestDatabases.h2(), Rig::hookConfig);
        rig.node.tasks().create(task("true"), "alice");
        rig.node.canaries().start("sync", task("exit 1"), Canaries.Rollout.of(null, 1, 20, 1), "alice");
        rig.finish(rig.trigger("sync"), false, "canary failed");
        rig.pump();
        assertThat(rig.alertsOf("CANARY_ROLLED_BACK"))
                .singleElement()
                .satisfies(a -> assertThat(a.title()).isEqualTo("sync: canary v2 rolled back automatically"));
        assertThat(rig.received)
                .anyMatch(b -> b.contains("CANARY_ROLLED_BACK") && b.contains("1 of 1 runs failed (100 %)"));

        rig.node.canaries().start("sync", task("exit 2"), Canaries.Rollout.of(10, null, null, null), "alice");
        rig.node.canaries().rollback("sync", "bob");
        rig.pump();
        assertThat(rig.alertsOf("CANARY_ROLLED_BACK")).hasSize(1);
        long taskId = rig.store
                .tx(tx -> rig.store.tasks().find(tx, "sync").orElseThrow())
                .id();
        List<EventRow> rollbacks =
                rig.store.tx(tx -> rig.store.events().ofType(tx, taskId, EventType.CANARY_ROLLED_BACK));
        assertThat(rollbacks).hasSize(2);
        assertThat(rig.alerts.loopErrors()).isZero();
    }
}
