package dev.ax.domain.task;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigInteger;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** What valid input turns into: defaults, accepted spellings, warnings. Cron cases live in the cron test. */
class TaskDefinitionCodecTest {
    private static final Object BASE = TaskDefinitionCodecErrorsTest.BASE;

    private static TaskDefinition parse(Object json) {
        return TaskDefinitionCodec.parse(json, Set.of()).definition();
    }

    @Test
    void absentOptionalPartsTakeTheirDefaults() {
        TaskDefinition d = parse(Json.parse("""
                { "taskName": "t1", "trigger": { "type": "event" }, "action": { "type": "shell", "command": "true" } }
                """));

        assertThat(d)
                .isEqualTo(new TaskDefinition(
                        "t1",
                        null,
                        null,
                        new Trigger.Event(ZoneId.of("UTC")),
                        new Action.Shell("true", Map.of(), null, "default"),
                        Policy.DEFAULT));
    }

    @Test
    void explicitNullsMeanAbsent() {
        TaskDefinition d = parse(Json.parse("""
                { "taskName": "t1", "description": null, "owner": null, "policy": null,
                  "trigger": { "type": "interval", "intervalSeconds": 60, "startAt": null, "timezone": null },
                  "action": { "type": "shell", "command": "true", "env": null, "workingDir": null, "group": null } }
                """));

        assertThat(d.trigger()).isEqualTo(new Trigger.Interval(60, null, ZoneId.of("UTC")));
        assertThat(d.action()).isEqualTo(new Action.Shell("true", Map.of(), null, "default"));
        assertThat(d.policy()).isEqualTo(Policy.DEFAULT);
    }

    @Test
    void retentionReadsAsWrittenAndWritesBackAsPeopleWroteIt() {
        TaskDefinition d = parse(Json.parse("""
                { "taskName": "t1", "trigger": { "type": "event" }, "action": { "type": "shell", "command": "true" },
                  "policy": { "retention": { "runs": "P30D", "failedRuns": "P180D", "keepLast": 100 } } }
                """));

        assertThat(d.policy().retention()).isEqualTo(new RunRetention(Duration.ofDays(30), Duration.ofDays(180), 100));
        Object written = TaskDefinitionCodec.toJson(d).get("policy");
        assertThat(((Map<?, ?>) written).get("retention"))
                .isEqualTo(Map.of("runs", "P30D", "failedRuns", "P180D", "keepLast", 100));
        assertThat(TaskDefinitionCodec.toJson(parse(BASE)).get("policy"))
                .as("a task without retention keeps the JSON it always had")
                .isInstanceOfSatisfying(Map.class, p -> assertThat(p).doesNotContainKey("retention"));
        assertThat(parse(Json.parse("""
                        { "taskName": "t1", "trigger": { "type": "event" }, "action": { "type": "shell", "command": "true" },
                          "policy": { "retention": { "runs": "PT10S" } } }
                        """)).policy().retention())
                .isEqualTo(new RunRetention(Duration.ofSeconds(10), null, null));
    }

    static Stream<Arguments> acceptedValues() {
        Function<TaskDefinition, Object> policy = TaskDefinition::policy;
        return Stream.of(
                accepted("taskName", "\"a\"", TaskDefinition::taskName, "a"),
                accepted(
                        "taskName",
                        "\"" + "9".repeat(100) + "\"",
                        d -> d.taskName().length(),
                        100),
                accepted("taskName", "\"etl.orders-v2_daily\"", TaskDefinition::taskName, "etl.orders-v2_daily"),
                accepted(
                        "trigger.timezone",
                        "\"Asia/Shanghai\"",
                        d -> d.trigger().timezone(),
                        ZoneId.of("Asia/Shanghai")),
                accepted(
                        "trigger.startAt",
                        "\"2026-01-01T08:00:00+08:00\"",
                        d -> ((Trigger.Interval) d.trigger()).startAt(),
                        Instant.parse("2026-01-01T00:00:00Z")),
                accepted(
                        "trigger.intervalSeconds",
                        "31536000",
                        d -> ((Trigger.Interval) d.trigger()).intervalSeconds(),
                        31_536_000L),
                accepted(
                        "trigger.intervalSeconds",
                        "60.0",
                        d -> ((Trigger.Interval) d.trigger()).intervalSeconds(),
                        60L),
                accepted("action.group", "\"gpu-hosts\"", TaskDefinition::group, "gpu-hosts"),
                accepted(
                        "action.env",
                        "{\"_X\": \"{{params.x}}\", \"ax_lower\": \"\"}",
                        d -> ((Action.Shell) d.action()).env(),
                        Map.of("_X", "{{params.x}}", "ax_lower", "")),
                accepted(
                        "action.workingDir",
                        "\"/data/{{date}}\"",
                        d -> ((Action.Shell) d.action()).workingDir(),
                        "/data/{{date}}"),
                accepted("policy.misfire", "\"fire_all\"", d -> d.policy().misfire(), MisfirePolicy.FIRE_ALL),
                accepted("policy.misfire", "\"Skip\"", d -> d.policy().misfire(), MisfirePolicy.SKIP),
                accepted("policy.timeoutSeconds", "null", d -> d.policy().timeoutSeconds(), null),
                accepted("policy.timeoutSeconds", "604800", d -> d.policy().timeoutSeconds(), 604_800L),
                accepted("policy.retryIntervalSeconds", "0", d -> d.policy().retryIntervalSeconds(), 0L),
                accepted("policy.maxConcurrency", "1000", d -> d.policy().maxConcurrency(), 1000),
                accepted("policy.retryable", "true", d -> d.policy().retryable(), RetryRules.ALL),
                accepted("policy.retryable", "false", d -> d.policy().retryable(), RetryRules.NONE),
                accepted("policy.retryable", "{}", d -> d.policy().retryable(), RetryRules.ALL),
                accepted(
                        "policy.retryable",
                        "{\"exitCodes\": [75, 1, 75]}",
                        d -> d.policy().retryable(),
                        new RetryRules(true, Set.of(1, 75), true, true)),
                accepted(
                        "policy.retryable",
                        "{\"timeout\": false, \"executorLost\": false}",
                        d -> d.policy().retryable(),
                        new RetryRules(true, Set.of(), false, false)),
                accepted(
                        "policy.idempotencyKey",
                        "\"{{taskName}}-{{date}}\"",
                        d -> d.policy().idempotencyKey(),
                        "{{taskName}}-{{date}}"),
                accepted("policy.overflow", "\"queue_one\"", d -> d.policy().overflow(), OverflowPolicy.QUEUE_ONE),
                accepted("policy.queueLimit", "0", d -> d.policy().queueLimit(), 0),
                accepted(
                        "policy.retryBackoff",
                        "\"exponential\"",
                        d -> d.policy().backoff().exponential(),
                        true),
                accepted("policy.retryJitter", "0.3", d -> d.policy().backoff().jitter(), 0.3),
                accepted("policy", "{}", policy, Policy.DEFAULT));
    }

    private static Arguments accepted(
            String path, String json, Function<TaskDefinition, Object> part, Object expected) {
        return Arguments.of(path, json, part, expected);
    }

    @ParameterizedTest(name = "{0} = {1}")
    @MethodSource("acceptedValues")
    void acceptsAndNormalises(String path, String json, Function<TaskDefinition, Object> part, Object expected) {
        assertThat(part.apply(parse(Json.with(BASE, path, json)))).isEqualTo(expected);
    }

    @Test
    void integersOfEveryJsonNumberTypeAreAccepted() {
        for (Object five : List.of(5, 5L, BigInteger.valueOf(5), 5.0, (short) 5)) {
            Map<String, Object> json = Json.with(BASE, "policy.maxRetries", "0");
            @SuppressWarnings("unchecked")
            Map<String, Object> policy = (Map<String, Object>) json.get("policy");
            policy.put("maxRetries", five);

            assertThat(parse(json).policy().maxRetries())
                    .as("%s", five.getClass())
                    .isEqualTo(5);
        }
    }

    @Test
    void unconfiguredChannelsAreAcceptedWithAWarningEach() {
        Object json = Json.with(BASE, "policy.notifyOnFailure", "[\"dingtalk\", \"email\", \"ops-webhook\"]");

        ParsedTask parsed = TaskDefinitionCodec.parse(json, Set.of("email"));

        assertThat(parsed.definition().policy().notifyOnFailure()).containsExactly("dingtalk", "email", "ops-webhook");
        assertThat(parsed.warnings())
                .containsExactly(
                        "policy.notifyOnFailure[0]: channel 'dingtalk' is not configured on this server;"
                                + " no alert will be sent through it until it is",
                        "policy.notifyOnFailure[2]: channel 'ops-webhook' is not configured on this server;"
                                + " no alert will be sent through it until it is");
    }

    @Test
    void shardingIsReadAsAFixedCountOrBroadcast() {
        Policy fixed = parse(Json.with(BASE, "policy", "{ \"sharding\": { \"shards\": 4, \"maxParallelShards\": 2 } }"))
                .policy();
        Policy broadcast = parse(Json.with(BASE, "policy", "{ \"sharding\": { \"mode\": \"Broadcast\" } }"))
                .policy();

        assertThat(fixed.sharding()).isEqualTo(new Sharding(4, false, 2));
        assertThat(broadcast.sharding()).isEqualTo(new Sharding(null, true, null));
        assertThat(parse(BASE).policy().sharding()).isNull();
        @SuppressWarnings("unchecked")
        Map<String, Object> written = (Map<String, Object>) ((Map<?, ?>) TaskDefinitionCodec.toJson(
                                parse(Json.with(BASE, "policy", "{ \"sharding\": { \"mode\": \"broadcast\" } }")))
                        .get("policy"))
                .get("sharding");
        assertThat(written).containsEntry("mode", "broadcast").doesNotContainKey("shards");
    }
}
