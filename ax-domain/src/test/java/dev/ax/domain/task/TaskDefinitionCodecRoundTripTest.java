package dev.ax.domain.task;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@code toJson} then {@code parse} gives back the same definition, directly and through JSON
 * text (as after storage, where a Long comes back as an Integer). Cron definitions are in
 * {@link TaskDefinitionCodecCronTest}.
 */
class TaskDefinitionCodecRoundTripTest {
    static Stream<TaskDefinition> definitions() {
        Stream<TaskDefinition> parsed = Stream.of("""
                { "taskName": "t", "trigger": { "type": "event" }, "action": { "type": "shell", "command": "true" } }
                """, """
                { "taskName": "sync_orders", "description": "", "owner": "data-team",
                  "trigger": { "type": "interval", "intervalSeconds": 1, "timezone": "Europe/Berlin" },
                  "action": { "type": "shell", "command": "echo \\"{{params.region}}\\"\\n",
                              "env": { "Z": "1", "A": "{{date}}", "_m": "" }, "workingDir": "/srv/{{taskName}}",
                              "group": "etl" },
                  "policy": { "maxRetries": 100, "retryIntervalSeconds": 0, "timeoutSeconds": 604800, "misfire": "fire_all",
                              "maxConcurrency": 1000, "retryable": { "exitCodes": [75, 1] }, "notifyOnFailure": ["b", "a", "b"],
                              "idempotencyKey": "{{taskName}}:{{date}}" } }
                """, """
                { "taskName": "anchored", "trigger": { "type": "interval", "intervalSeconds": 31536000,
                  "startAt": "2026-03-01T00:00:00.123456789+05:30", "timezone": "+05:30" },
                  "action": { "type": "shell", "command": "run" },
                  "policy": { "retryable": false, "misfire": "SKIP", "timeoutSeconds": null } }
                """, """
                { "taskName": "later", "trigger": { "type": "event", "timezone": "America/New_York" },
                  "action": { "type": "shell", "command": "run" },
                  "policy": { "retryable": { "timeout": false }, "approval": { "approvers": ["ann", "operator"], "timeoutSeconds": 60, "fourEyes": true,
                                                              "preview": { "type": "shell", "command": "wc -l {{date}}.csv" } },
                              "onFailedActions": [ { "type": "trigger", "taskName": "cleanup", "params": { "day": "{{date}}" } },
                                                  { "type": "pause", "tasks": ["report", "export"] },
                                                  { "type": "webhook", "url": "http://hooks.local/x", "headers": { "X-K": "v" } } ],
                              "overflow": "replace", "queueLimit": 2147483647, "sharding": { "mode": "broadcast" } } }
                """)
                .map(text ->
                        TaskDefinitionCodec.parse(Json.parse(text), Set.of()).definition());
        Stream<TaskDefinition> built = Stream.of(
                new TaskDefinition(
                        "built.by-code",
                        "desc",
                        "me",
                        new Trigger.Interval(90, Instant.parse("2030-01-01T00:00:00Z"), ZoneId.of("UTC")),
                        new Action.Shell("echo {{yesterday}}", Map.of("B", "2", "A", "1"), "/tmp", "default"),
                        new Policy(
                                3,
                                15,
                                60L,
                                MisfirePolicy.FIRE_ONCE,
                                2,
                                new RetryRules(true, Set.of(2, 1), true, false),
                                List.of("email"),
                                null,
                                OverflowPolicy.QUEUE_ONE,
                                5,
                                new RetryBackoff(true, 600L, 0.25),
                                List.of(
                                        new FollowUp.PauseTasks(List.of("down")),
                                        new FollowUp.TriggerTask("fix", Map.of("d", "{{date}}"))),
                                new Approval(
                                        List.of("alice", "admin"),
                                        600L,
                                        true,
                                        new Action.Shell("wc -l {{date}}.csv", null, null, null)),
                                SuccessNotice.RECOVERY,
                                new Sharding(2, false, 1))),
                new TaskDefinition(
                        "http-call",
                        null,
                        null,
                        new Trigger.Event(ZoneId.of("UTC")),
                        new Action.Http(
                                "POST",
                                "https://svc.local/jobs/{{date}}",
                                Map.of("X-K", "{{taskName}}"),
                                Map.of("day", "{{date}}", "n", 3),
                                true,
                                "web"),
                        new Policy(
                                2,
                                5,
                                null,
                                MisfirePolicy.FIRE_ONCE,
                                1,
                                new RetryRules(true, Set.of(), true, true, Set.of(409, 503)),
                                List.of(),
                                null)),
                new TaskDefinition(
                        "sdk-call",
                        null,
                        null,
                        new Trigger.Event(ZoneId.of("UTC")),
                        new Action.Sdk("syncOrders", "orders"),
                        Policy.DEFAULT),
                new TaskDefinition(
                        "utc-offset",
                        null,
                        null,
                        new Trigger.Event(ZoneOffset.UTC),
                        new Action.Shell("x", null, null, null),
                        Policy.DEFAULT),
                new TaskDefinition(
                        "none",
                        null,
                        null,
                        new Trigger.Interval(5, null, ZoneId.of("Asia/Kolkata")),
                        new Action.Shell("x", Map.of(), null, "g"),
                        new Policy(0, 60, null, MisfirePolicy.SKIP, 1, RetryRules.NONE, List.of(), null)));
        return Stream.concat(parsed, built);
    }

    @ParameterizedTest(name = "{index}: {0}")
    @MethodSource("definitions")
    void roundTrips(TaskDefinition d) {
        assertRoundTrips(d);
    }

    /** Shared with the cron test. */
    static void assertRoundTrips(TaskDefinition d) {
        Map<String, Object> json = TaskDefinitionCodec.toJson(d);

        assertThat(TaskDefinitionCodec.parse(json, Set.of()).definition()).isEqualTo(d);
        Object stored = Json.parse(Json.write(json));
        assertThat(TaskDefinitionCodec.parse(stored, Set.of()).definition()).isEqualTo(d);
        // The canonical form is a fixed point: saving a stored definition again changes nothing.
        assertThat(Json.write(TaskDefinitionCodec.toJson(
                        TaskDefinitionCodec.parse(stored, Set.of()).definition())))
                .isEqualTo(Json.write(json));
    }

    @Test
    void theCanonicalFormSpellsOutEveryDefault() {
        TaskDefinition d = TaskDefinitionCodec.parse(Json.parse("""
                { "taskName": "t", "trigger": { "type": "interval", "intervalSeconds": 60 },
                  "action": { "type": "shell", "command": "true", "env": { "B": "2", "A": "1" } } }
                """), Set.of()).definition();

        assertThat(Json.write(TaskDefinitionCodec.toJson(d))).isEqualTo(Json.write(Json.parse("""
                { "taskName": "t", "description": null, "owner": null,
                  "trigger": { "type": "interval", "intervalSeconds": 60, "startAt": null, "timezone": "UTC" },
                  "action": { "type": "shell", "command": "true", "env": { "A": "1", "B": "2" }, "workingDir": null,
                              "group": "default" },
                  "policy": { "maxRetries": 0, "retryIntervalSeconds": 60, "timeoutSeconds": null, "misfire": "FIRE_ONCE",
                              "maxConcurrency": 1, "retryable": true, "notifyOnFailure": [], "idempotencyKey": null,
                              "overflow": "QUEUE", "queueLimit": null, "retryBackoff": "FIXED",
                              "retryMaxIntervalSeconds": null, "retryJitter": 0.0, "onFailedActions": [], "approval": null,
                              "notifyOnSuccess": "NEVER" } }
                """)));
    }

    @Test
    void retryRulesUseTheShortestFormThatSaysTheSame() {
        Policy p = new Policy(0, 60, null, null, 1, new RetryRules(true, Set.of(75, 1), true, true), null, null);
        TaskDefinition d = new TaskDefinition(
                "t", null, null, new Trigger.Event(ZoneId.of("UTC")), new Action.Shell("x", null, null, null), p);

        @SuppressWarnings("unchecked")
        Map<String, Object> policy =
                (Map<String, Object>) TaskDefinitionCodec.toJson(d).get("policy");

        assertThat(policy.get("retryable"))
                .isEqualTo(Map.of(
                        "exitCodes", List.of(1, 75), "timeout", true, "executorLost", true, "httpStatuses", List.of()));
        assertThat(TaskDefinitionCodec.toJson(
                        new TaskDefinition("t", null, null, d.trigger(), d.action(), Policy.DEFAULT)))
                .extractingByKey("policy")
                .asInstanceOf(InstanceOfAssertFactories.MAP)
                .containsEntry("retryable", true);
    }
}
