package dev.ax.domain.template;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.time.ZoneId;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class TemplatesTest {
    /** The 02:00 Shanghai slot: still the 29th in UTC, which is exactly what must not leak in. */
    private static final Instant SLOT = Instant.parse("2026-11-29T18:00:00Z");

    private static final ZoneId SHANGHAI = ZoneId.of("Asia/Shanghai");

    private static TemplateContext ctx() {
        Map<String, Object> params = new HashMap<>();
        params.put("region", "eu-west");
        params.put("n", 3);
        params.put("flag", true);
        params.put("a.b-c_d", "dotted");
        params.put("nested", "{{date}}");
        params.put("nothing", null);
        params.put("obj", Map.of("k", "v"));
        return new TemplateContext("daily_report", SLOT, SHANGHAI, params, 42, 2, "req-7");
    }

    static Stream<Arguments> renders() {
        return Stream.of(
                Arguments.of("{{yesterday}}", "2026-11-29"),
                Arguments.of("{{date}}", "2026-11-30"),
                Arguments.of("{{ tomorrow }}", "2026-12-01"),
                Arguments.of("{{dateCompact}}", "20261130"),
                Arguments.of("{{scheduledAt}}", "2026-11-30T02:00:00+08:00"),
                Arguments.of("{{scheduledEpoch}}", "1795975200"),
                Arguments.of("{{taskName}}", "daily_report"),
                Arguments.of("{{instanceId}}", "42"),
                Arguments.of("{{attempt}}", "2"),
                Arguments.of("{{requestId}}", "req-7"),
                Arguments.of("{{params.region}}", "eu-west"),
                Arguments.of("{{params.n}}", "3"),
                Arguments.of("{{params.flag}}", "true"),
                Arguments.of("{{  params.a.b-c_d\t}}", "dotted"),
                // A value is not scanned again: parameters cannot smuggle in variables.
                Arguments.of("{{params.nested}}", "{{date}}"),
                Arguments.of(
                        "python /data/scripts/gen_report.py --date {{yesterday}}",
                        "python /data/scripts/gen_report.py --date 2026-11-29"),
                Arguments.of("/out/{{dateCompact}}/{{taskName}}-{{attempt}}.csv", "/out/20261130/daily_report-2.csv"),
                Arguments.of("{{date}}{{date}}", "2026-11-302026-11-30"),
                Arguments.of("no variables at all", "no variables at all"),
                Arguments.of("", ""),
                Arguments.of("} { }} {", "} { }} {"),
                Arguments.of("{ {date} }", "{ {date} }"));
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @MethodSource("renders")
    void renders(String template, String expected) {
        assertThat(Templates.render(template, ctx())).isEqualTo(expected);
    }

    @Test
    void datesAreTheSlotsDateInTheTriggerZone() {
        Instant slot = Instant.parse("2025-12-31T23:30:00Z"); // 00:30 on New Year's Day in Berlin
        var berlin = new TemplateContext("t", slot, ZoneId.of("Europe/Berlin"), Map.of(), 1, 1, null);
        var utc = new TemplateContext("t", slot, ZoneId.of("UTC"), Map.of(), 1, 1, null);

        assertThat(Templates.render("{{yesterday}} {{date}} {{tomorrow}}", berlin))
                .isEqualTo("2025-12-31 2026-01-01 2026-01-02");
        assertThat(Templates.render("{{yesterday}} {{date}} {{tomorrow}}", utc))
                .isEqualTo("2025-12-30 2025-12-31 2026-01-01");
        assertThat(Templates.render("{{scheduledAt}}", utc)).isEqualTo("2025-12-31T23:30:00Z");
    }

    @Test
    void scheduledRunsRenderAnEmptyRequestId() {
        var scheduled = new TemplateContext("t", SLOT, SHANGHAI, null, 1, 1, null);
        assertThat(Templates.render("[{{requestId}}]", scheduled)).isEqualTo("[]");
    }

    @Test
    void aTemplateWithoutVariablesIsReturnedAsItIs() {
        String command = "echo hello";
        assertThat(Templates.render(command, ctx())).isSameAs(command);
    }

    static Stream<Arguments> renderFailures() {
        return Stream.of(
                Arguments.of("echo {{foo}}", "unknown template variable 'foo'; known: date, yesterday, tomorrow"),
                Arguments.of(
                        "{{params.missing}}",
                        "template variable params.missing has no value: pass it as a trigger parameter"),
                Arguments.of("{{params.nothing}}", "template variable params.nothing has no value"),
                Arguments.of("{{params.obj}}", "is a JSON object"),
                Arguments.of("{{secret.db}}", "secret db is not set"),
                Arguments.of("{{params.}}", "unknown template variable 'params.'"),
                Arguments.of("{{params.a b}}", "unknown template variable 'params.a b'"),
                Arguments.of("{{}}", "empty template variable"),
                Arguments.of("echo {{date", "unclosed '{{' at position 5"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("renderFailures")
    void renderFailsLoudly(String template, String reason) {
        assertThatThrownBy(() -> Templates.render(template, ctx()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(reason);
    }

    @Test
    void unknownVariablesAreListedOnceInOrder() {
        assertThat(Templates.unknownVariables("{{foo}} {{date}} {{ bar }} {{foo}} {{params.ok}} {{params.}} {{Date}}"))
                .containsExactly("foo", "bar", "params.", "Date");
        assertThat(Templates.unknownVariables("echo {{date}} {{params.x}}")).isEmpty();
    }

    @Test
    void problemsCoverSyntaxAsWellAsNames() {
        assertThat(Templates.problems("{{date}} {{params.x}}")).isEmpty();
        assertThat(Templates.problems("a {{ }} b {{nope}} c {{date"))
                .containsExactly(
                        "empty template variable '{{}}' at position 2",
                        "unclosed '{{' at position 21; every '{{' starts a variable that '}}' must close",
                        "unknown template variable 'nope'; known: " + String.join(", ", Templates.VARIABLES));
    }

    @Test
    void everyListedVariableRenders() {
        for (String name : Templates.VARIABLES) {
            String template = "{{" + name.replace("NAME", "region") + "}}";
            assertThat(Templates.problems(template)).as(template).isEmpty();
            assertThat(Templates.render(template, ctx().withSecrets(Map.of("region", "s3cr3t"))))
                    .as(template)
                    .isNotEmpty();
        }
        assertThat(Templates.VARIABLES).startsWith("date", "yesterday");
        assertThat(List.copyOf(Templates.VARIABLES)).doesNotHaveDuplicates();
    }
}
