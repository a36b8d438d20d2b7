package dev.ax.domain.task;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.math.BigInteger;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every rule of the codec, broken one at a time from a valid definition: exactly one error, on
 * exactly the right field, with a reason that says what to do. The base uses an interval
 * trigger so that these tests do not depend on the cron parser.
 */
class TaskDefinitionCodecErrorsTest {
    static final Object BASE = Json.parse("""
            { "taskName": "sync_orders",
              "trigger": { "type": "interval", "intervalSeconds": 300 },
              "action": { "type": "shell", "command": "echo {{date}}" },
              "policy": { "maxRetries": 1 } }
            """);
    private static final String ABSENT = null;

    static Stream<Arguments> brokenFields() {
        return Stream.of(
                // root
                broken("bogus", "1", "bogus", "unknown field"),
                broken("taskName", ABSENT, "taskName", "is required"),
                broken("taskName", "null", "taskName", "is required"),
                broken("taskName", "42", "taskName", "must be a string"),
                broken("taskName", "\"\"", "taskName", "1 to 100"),
                broken("taskName", "\"" + "a".repeat(101) + "\"", "taskName", "1 to 100"),
                broken("taskName", "\"-leading-dash\"", "taskName", "start with a letter or digit"),
                broken("taskName", "\"daily report\"", "taskName", "letters, digits, '_', '.' and '-'"),
                broken("taskName", "\"日报\"", "taskName", "letters, digits"),
                broken("description", "5", "description", "must be a string"),
                broken("owner", "[]", "owner", "must be a string"),
                // trigger
                broken("trigger", ABSENT, "trigger", "is required"),
                broken("trigger", "\"every 5 minutes\"", "trigger", "must be an object"),
                broken("trigger.type", ABSENT, "trigger.type", "is required"),
                broken("trigger.type", "1", "trigger.type", "must be a string"),
                broken(
                        "trigger.type",
                        "\"weekly\"",
                        "trigger.type",
                        "unknown trigger type 'weekly'",
                        "cron, interval or event"),
                broken("trigger.timezone", "\"Mars/Base\"", "trigger.timezone", "unknown time zone 'Mars/Base'"),
                broken("trigger.timezone", "8", "trigger.timezone", "must be a string"),
                broken("trigger.intervalSeconds", ABSENT, "trigger.intervalSeconds", "is required"),
                broken("trigger.intervalSeconds", "0", "trigger.intervalSeconds", "between 1 and 31536000"),
                broken("trigger.intervalSeconds", "31536001", "trigger.intervalSeconds", "between 1 and 31536000"),
                broken("trigger.intervalSeconds", "1e30", "trigger.intervalSeconds", "between 1 and 31536000"),
                broken(
                        "trigger.intervalSeconds",
                        "99999999999999999999999",
                        "trigger.intervalSeconds",
                        "between 1 and 31536000"),
                broken("trigger.intervalSeconds", "\"60\"", "trigger.intervalSeconds", "must be an integer"),
                broken("trigger.intervalSeconds", "1.5", "trigger.intervalSeconds", "must be an integer"),
                broken("trigger.intervalSeconds", "true", "trigger.intervalSeconds", "must be an integer"),
                broken("trigger.startAt", "\"tomorrow\"", "trigger.startAt", "ISO-8601 instant"),
                broken("trigger.startAt", "\"2026-01-01\"", "trigger.startAt", "ISO-8601 instant"),
                broken("trigger.expression", "\"0 2 * * *\"", "trigger.expression", "unknown field"),
                broken(
                        "trigger",
                        "{\"type\": \"event\", \"intervalSeconds\": 5}",
                        "trigger.intervalSeconds",
                        "unknown field"),
                // action
                broken("action", ABSENT, "action", "is required"),
                broken("action", "\"echo hi\"", "action", "must be an object"),
                broken("action.type", ABSENT, "action.type", "is required"),
                broken("action", "{\"type\":\"http\"}", "action.url", "is required"),
                broken("action", "{\"type\":\"http\",\"url\":\"ftp://x\"}", "action.url", "must start with http"),
                broken(
                        "action",
                        "{\"type\":\"http\",\"url\":\"http://x\",\"method\":\"FETCH\"}",
                        "action.method",
                        "GET, POST"),
                broken(
                        "action",
                        "{\"type\":\"http\",\"url\":\"http://x/{{nope}}\"}",
                        "action.url",
                        "unknown template variable 'nope'"),
                broken("action", "{\"type\":\"http\",\"url\":\"http://x\",\"body\":5}", "action.body", "string"),
                broken("action", "{\"type\":\"sdk\"}", "action.handler", "is required"),
                broken(
                        "action",
                        "{\"type\":\"sdk\",\"handler\":\"h\",\"command\":\"x\"}",
                        "action.command",
                        "unknown field"),
                broken(
                        "action.type",
                        "\"ftp\"",
                        "action.type",
                        "unknown action type 'ftp'; expected shell, http or sdk"),
                broken("action.command", ABSENT, "action.command", "is required"),
                broken("action.command", "\"  \"", "action.command", "must not be blank"),
                broken("action.command", "7", "action.command", "must be a string"),
                broken("action.command", "\"" + "x".repeat(64 * 1024 + 1) + "\"", "action.command", "64 KiB"),
                broken("action.command", "\"" + "é".repeat(32 * 1024 + 1) + "\"", "action.command", "64 KiB"),
                broken(
                        "action.command",
                        "\"echo {{foo}}\"",
                        "action.command",
                        "unknown template variable 'foo'; known: date, yesterday"),
                broken("action.command", "\"echo {{date\"", "action.command", "unclosed '{{'"),
                broken("action.command", "\"echo {{ }}\"", "action.command", "empty template variable"),
                broken(
                        "action.command",
                        "\"echo {{params.}}\"",
                        "action.command",
                        "unknown template variable 'params.'"),
                broken("action.retries", "3", "action.retries", "unknown field"),
                broken("action.env", "\"FOO=1\"", "action.env", "must be an object"),
                broken("action.env", "{\"1BAD\": \"v\"}", "action.env.1BAD", "[A-Za-z_][A-Za-z0-9_]*"),
                broken("action.env", "{\"AX_TASK_NAME\": \"v\"}", "action.env.AX_TASK_NAME", "AX_", "reserved"),
                broken("action.env", "{\"FOO\": 1}", "action.env.FOO", "must be a string"),
                broken("action.env", "{\"FOO\": null}", "action.env.FOO", "must be a string"),
                broken("action.env", "{\"FOO\": \"{{nope}}\"}", "action.env.FOO", "unknown template variable 'nope'"),
                broken("action.workingDir", "\"\"", "action.workingDir", "must not be blank"),
                broken(
                        "action.workingDir",
                        "\"/data/{{bad}}\"",
                        "action.workingDir",
                        "unknown template variable 'bad'"),
                broken("action.group", "\"gpu hosts\"", "action.group", "letters, digits"),
                broken("action.group", "3", "action.group", "must be a string"),
                // policy
                broken("policy", "\"strict\"", "policy", "must be an object"),
                broken("policy.color", "\"red\"", "policy.color", "unknown field"),
                broken("policy.maxRetries", "-1", "policy.maxRetries", "between 0 and 100"),
                broken("policy.maxRetries", "101", "policy.maxRetries", "between 0 and 100"),
                broken("policy.maxRetries", "\"2\"", "policy.maxRetries", "must be an integer"),
                broken("policy.maxRetries", "false", "policy.maxRetries", "must be an integer"),
                broken("policy.retryIntervalSeconds", "86401", "policy.retryIntervalSeconds", "between 0 and 86400"),
                broken("policy.timeoutSeconds", "-5", "policy.timeoutSeconds", "must be between 1 and 604800"),
                broken("policy.timeoutSeconds", "0", "policy.timeoutSeconds", "must be between 1 and 604800"),
                broken("policy.timeoutSeconds", "604801", "policy.timeoutSeconds", "must be between 1 and 604800"),
                broken("policy.misfire", "\"LATER\"", "policy.misfire", "FIRE_ONCE, FIRE_ALL, SKIP"),
                broken("policy.misfire", "1", "policy.misfire", "must be a string"),
                broken("policy.maxConcurrency", "0", "policy.maxConcurrency", "between 1 and 1000"),
                broken("policy.maxConcurrency", "1001", "policy.maxConcurrency", "between 1 and 1000"),
                broken("policy.retryable", "\"yes\"", "policy.retryable", "true, false or an object"),
                broken(
                        "policy.retryable",
                        "{\"exitCodes\": [0]}",
                        "policy.retryable.exitCodes[0]",
                        "between 1 and 255"),
                broken(
                        "policy.retryable",
                        "{\"exitCodes\": [1, 256]}",
                        "policy.retryable.exitCodes[1]",
                        "between 1 and 255"),
                broken(
                        "policy.retryable",
                        "{\"exitCodes\": [null]}",
                        "policy.retryable.exitCodes[0]",
                        "must be an integer"),
                broken("policy.retryable", "{\"exitCodes\": \"1\"}", "policy.retryable.exitCodes", "must be an array"),
                broken(
                        "policy.retryable",
                        "{\"timeout\": \"no\"}",
                        "policy.retryable.timeout",
                        "must be true or false"),
                broken("policy.retryable", "{\"signals\": []}", "policy.retryable.signals", "unknown field"),
                broken("policy.notifyOnFailure", "\"email\"", "policy.notifyOnFailure", "must be an array"),
                broken(
                        "policy.notifyOnFailure",
                        "[\"email\", \" \"]",
                        "policy.notifyOnFailure[1]",
                        "must not be blank"),
                broken("policy.notifyOnFailure", "[\"email\", 3]", "policy.notifyOnFailure[1]", "must be a string"),
                broken("policy.notifyOnFailure", "[null]", "policy.notifyOnFailure[0]", "must be a string"),
                broken(
                        "policy.idempotencyKey",
                        "\"{{bogus}}\"",
                        "policy.idempotencyKey",
                        "unknown template variable 'bogus'"),
                broken("policy.idempotencyKey", "\"\"", "policy.idempotencyKey", "must not be blank"),
                broken("policy.approval", "\"yes\"", "policy.approval", "must be an object"),
                broken(
                        "policy.approval",
                        "{\"approvers\":[\"bad name\"]}",
                        "policy.approval.approvers[0]",
                        "may contain only"),
                broken("policy.approval", "{\"timeoutSeconds\":0}", "policy.approval.timeoutSeconds", "between 1"),
                broken(
                        "policy.approval",
                        "{\"preview\":{\"type\":\"shell\"}}",
                        "policy.approval.preview.command",
                        "required"),
                broken("policy.approval", "{\"quorum\":2}", "policy.approval.quorum", "unknown field"),
                broken("policy.onFailedActions", "{}", "policy.onFailedActions", "must be an array"),
                broken(
                        "policy.onFailedActions",
                        "[{\"type\":\"email\"}]",
                        "policy.onFailedActions[0].type",
                        "trigger, pause or webhook"),
                broken(
                        "policy.onFailedActions",
                        "[{\"type\":\"trigger\"}]",
                        "policy.onFailedActions[0].taskName",
                        "required"),
                broken(
                        "policy.onFailedActions",
                        "[{\"type\":\"trigger\",\"taskName\":\"c\",\"params\":{\"d\":\"{{nope}}\"}}]",
                        "policy.onFailedActions[0].params.d",
                        "unknown template variable 'nope'"),
                broken(
                        "policy.onFailedActions",
                        "[{\"type\":\"pause\",\"tasks\":[]}]",
                        "policy.onFailedActions[0].tasks",
                        "at least one"),
                broken(
                        "policy.onFailedActions",
                        "[{\"type\":\"webhook\",\"url\":\"ftp://x\"}]",
                        "policy.onFailedActions[0].url",
                        "http"),
                broken("policy.overflow", "\"DROP\"", "policy.overflow", "QUEUE, QUEUE_ONE, SKIP, REPLACE, ALLOW"),
                broken("policy.queueLimit", "-1", "policy.queueLimit", "0 or more"),
                broken("policy.retryBackoff", "\"linear\"", "policy.retryBackoff", "FIXED, EXPONENTIAL"),
                broken("policy.retryMaxIntervalSeconds", "0", "policy.retryMaxIntervalSeconds", "between 1 and 86400"),
                broken("policy.retryJitter", "1.5", "policy.retryJitter", "between 0 and 1"),
                broken("policy.retryJitter", "\"x\"", "policy.retryJitter", "between 0 and 1"),
                broken("policy.sharding", "5", "policy.sharding", "must be an object"),
                broken("policy.sharding", "{}", "policy.sharding.shards", "required"),
                broken("policy.sharding", "{\"shards\":0}", "policy.sharding.shards", "between 1 and 1000"),
                broken("policy.sharding", "{\"shards\":1001}", "policy.sharding.shards", "between 1 and 1000"),
                broken("policy.sharding", "{\"mode\":\"all\"}", "policy.sharding.mode", "broadcast"),
                broken(
                        "policy.sharding",
                        "{\"mode\":\"broadcast\",\"shards\":2}",
                        "policy.sharding.shards",
                        "must not be set"),
                broken(
                        "policy.sharding",
                        "{\"shards\":2,\"maxParallelShards\":0}",
                        "policy.sharding.maxParallelShards",
                        "1 or more"),
                broken("policy.sharding", "{\"shards\":2,\"every\":1}", "policy.sharding.every", "unknown field"));
    }

    private static Arguments broken(String path, String json, String field, String... reasonParts) {
        return Arguments.of(path, json, field, reasonParts);
    }

    @ParameterizedTest(name = "{0} = {1}")
    @MethodSource("brokenFields")
    void oneBrokenFieldIsOneError(String path, String json, String field, String[] reasonParts) {
        List<FieldError> errors = errors(Json.with(BASE, path, json));

        assertThat(errors).hasSize(1);
        assertThat(errors.get(0).field()).isEqualTo(field);
        assertThat(errors.get(0).reason()).contains(reasonParts);
    }

    @Test
    void theBaseIsValid() {
        assertThat(TaskDefinitionCodec.parse(BASE, Set.of()).warnings()).isEmpty();
    }

    @Test
    void theRootMustBeAnObject() {
        for (Object root : List.of("daily_report", List.of(), 1)) {
            assertThat(errors(root)).containsExactly(new FieldError("", "must be an object"));
        }
        assertThat(errors(null)).extracting(FieldError::field).containsExactly("");
    }

    @Test
    void everyErrorIsReportedTogetherInDocumentOrder() {
        Object json = Json.parse("""
                { "taskName": "daily report",
                  "trigger": { "type": "interval", "intervalSeconds": 0, "timezone": "Mars/Base" },
                  "action": { "type": "ftp", "url": "ftp://example.com" },
                  "policy": { "timeoutSeconds": -1, "notifyOnFailure": ["email", ""], "misfire": "never",
                              "retries": 3 } }
                """);

        var e = catchThrowableOfType(ValidationException.class, () -> TaskDefinitionCodec.parse(json, Set.of("email")));

        assertThat(e.errors())
                .extracting(FieldError::field)
                .containsExactly(
                        "taskName",
                        "trigger.timezone",
                        "trigger.intervalSeconds",
                        "action.type",
                        "policy.retries",
                        "policy.timeoutSeconds",
                        "policy.misfire",
                        "policy.notifyOnFailure[1]");
        assertThat(e.getMessage()).contains("taskName: ", "action.type: unknown action type 'ftp'");
    }

    @Test
    void aBadZoneDoesNotHideOtherTriggerErrors() {
        Object json = Json.with(
                BASE, "trigger", "{\"type\": \"interval\", \"timezone\": \"Nowhere\", \"startAt\": \"soon\"}");

        assertThat(errors(json))
                .extracting(FieldError::field)
                .containsExactly("trigger.timezone", "trigger.intervalSeconds", "trigger.startAt");
    }

    @Test
    void oneFieldCanHaveSeveralErrors() {
        Object json = Json.with(BASE, "action.command", "\"cp {{foo}} /out/{{bar}}\"");

        assertThat(errors(json)).extracting(FieldError::field).containsExactly("action.command", "action.command");
        assertThat(errors(json))
                .extracting(FieldError::reason)
                .anySatisfy(r -> assertThat(r).contains("'foo'"))
                .anySatisfy(r -> assertThat(r).contains("'bar'"));
    }

    @Test
    void numbersInRangeOfEveryJavaTypeAreChecked() {
        for (Object tooBig : List.of(101, 101L, BigInteger.valueOf(101), 101.0, BigInteger.TEN.pow(40), Double.NaN)) {
            Map<String, Object> json = Json.with(BASE, "policy.maxRetries", "0");
            @SuppressWarnings("unchecked")
            Map<String, Object> policy = (Map<String, Object>) json.get("policy");
            policy.put("maxRetries", tooBig);

            assertThat(errors(json))
                    .as("%s", tooBig)
                    .extracting(FieldError::field)
                    .containsExactly("policy.maxRetries");
        }
    }

    static List<FieldError> errors(Object json) {
        var e = catchThrowableOfType(ValidationException.class, () -> TaskDefinitionCodec.parse(json, Set.of()));
        assertThat(e).as("expected a ValidationException").isNotNull();
        return e.errors();
    }
}
