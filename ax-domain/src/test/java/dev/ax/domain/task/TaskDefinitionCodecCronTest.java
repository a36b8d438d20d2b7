package dev.ax.domain.task;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.ax.domain.schedule.CronSchedule;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Cron triggers, starting with the README example. These need the real {@link CronSchedule}. */
class TaskDefinitionCodecCronTest {
    /** The task JSON, verbatim. */
    static final String SEED = """
            {
              "taskName": "daily_report",
              "trigger": { "type": "cron", "expression": "0 2 * * *", "timezone": "Asia/Shanghai" },
              "action": { "type": "shell", "command": "python /data/scripts/gen_report.py --date {{yesterday}}" },
              "policy": { "maxRetries": 2, "retryIntervalSeconds": 300, "timeoutSeconds": 1200,
                          "notifyOnFailure": ["dingtalk", "email"] }
            }
            """;

    @Test
    void theSeedIsAcceptedVerbatim() {
        ParsedTask parsed = TaskDefinitionCodec.parse(Json.parse(SEED), Set.of());

        assertThat(parsed.definition())
                .isEqualTo(new TaskDefinition(
                        "daily_report",
                        null,
                        null,
                        new Trigger.Cron("0 2 * * *", ZoneId.of("Asia/Shanghai")),
                        new Action.Shell(
                                "python /data/scripts/gen_report.py --date {{yesterday}}", Map.of(), null, "default"),
                        new Policy(
                                2,
                                300,
                                1200L,
                                MisfirePolicy.FIRE_ONCE,
                                1,
                                RetryRules.ALL,
                                List.of("dingtalk", "email"),
                                null)));
        assertThat(parsed.warnings())
                .containsExactly(
                        "policy.notifyOnFailure[0]: channel 'dingtalk' is not configured on this server;"
                                + " no alert will be sent through it until it is",
                        "policy.notifyOnFailure[1]: channel 'email' is not configured on this server;"
                                + " no alert will be sent through it until it is");
    }

    @Test
    void theSeedHasNoWarningsWhenItsChannelsAreConfigured() {
        assertThat(TaskDefinitionCodec.parse(Json.parse(SEED), Set.of("email", "dingtalk", "slack"))
                        .warnings())
                .isEmpty();
    }

    @Test
    void theSeedRoundTrips() {
        TaskDefinitionCodecRoundTripTest.assertRoundTrips(
                TaskDefinitionCodec.parse(Json.parse(SEED), Set.of()).definition());
    }

    @Test
    void everyOptionalFieldOfTheDocumentedShapeIsAccepted() {
        ParsedTask parsed = TaskDefinitionCodec.parse(Json.parse("""
                { "taskName": "daily_report",
                  "description": "optional", "owner": "optional",
                  "trigger": { "type": "cron", "expression": "0 2 * * *", "timezone": "Asia/Shanghai" },
                  "action": { "type": "shell", "command": "python /data/scripts/gen_report.py --date {{yesterday}}",
                              "env": {"K":"v"}, "workingDir": "/tmp", "group": "default" },
                  "policy": { "maxRetries": 2, "retryIntervalSeconds": 300, "timeoutSeconds": 1200,
                              "notifyOnFailure": ["dingtalk", "email"] } }
                """), Set.of("dingtalk", "email"));

        TaskDefinition d = parsed.definition();
        assertThat(d.description()).isEqualTo("optional");
        assertThat(d.owner()).isEqualTo("optional");
        assertThat(d.action())
                .isEqualTo(new Action.Shell(
                        "python /data/scripts/gen_report.py --date {{yesterday}}",
                        Map.of("K", "v"),
                        "/tmp",
                        "default"));
        assertThat(parsed.warnings()).isEmpty();
        TaskDefinitionCodecRoundTripTest.assertRoundTrips(d);
    }

    @ParameterizedTest
    @ValueSource(strings = {"0 2 * * *", "*/5 * * * *", "0 0 2 * * *", "@daily", "0 9 * * MON-FRI", "  30 1 1 * *  "})
    void validExpressionsAreAcceptedAndRoundTrip(String expression) {
        TaskDefinition d = TaskDefinitionCodec.parse(
                        Json.with(Json.parse(SEED), "trigger.expression", Json.write(expression)), Set.of())
                .definition();

        assertThat(d.trigger()).isEqualTo(new Trigger.Cron(expression.strip(), ZoneId.of("Asia/Shanghai")));
        TaskDefinitionCodecRoundTripTest.assertRoundTrips(d);
    }

    @ParameterizedTest
    @ValueSource(strings = {"61 * * * *", "0 2 * *", "0 2 * * * * * *", "every day", "@fortnightly"})
    void aBadExpressionIsReportedWithTheCronParsersReason(String expression) {
        String reason = catchThrowableOfType(
                        IllegalArgumentException.class, () -> CronSchedule.parse(expression, ZoneOffset.UTC))
                .getMessage();

        List<FieldError> errors = TaskDefinitionCodecErrorsTest.errors(
                Json.with(Json.parse(SEED), "trigger.expression", Json.write(expression)));

        assertThat(errors).containsExactly(new FieldError("trigger.expression", reason));
        assertThat(reason).isNotBlank();
    }

    @Test
    void cronFieldErrors() {
        Object seed = Json.parse(SEED);
        assertThat(TaskDefinitionCodecErrorsTest.errors(Json.with(seed, "trigger.expression", null)))
                .containsExactly(new FieldError("trigger.expression", "is required"));
        assertThat(TaskDefinitionCodecErrorsTest.errors(Json.with(seed, "trigger.expression", "\" \"")))
                .containsExactly(new FieldError("trigger.expression", "must not be blank"));
        assertThat(TaskDefinitionCodecErrorsTest.errors(Json.with(seed, "trigger.intervalSeconds", "60")))
                .containsExactly(new FieldError("trigger.intervalSeconds", "unknown field"));
    }

    @Test
    void aBadZoneAndABadExpressionAreBothReported() {
        Object json = Json.with(
                Json.with(Json.parse(SEED), "trigger.timezone", "\"Mars/Base\""),
                "trigger.expression",
                "\"61 * * * *\"");

        assertThat(TaskDefinitionCodecErrorsTest.errors(json))
                .extracting(FieldError::field)
                .containsExactly("trigger.timezone", "trigger.expression");
    }
}
