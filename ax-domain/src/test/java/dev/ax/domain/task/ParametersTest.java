package dev.ax.domain.task;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Declared parameters: the declaration's own validation, and the one check every run's values go through. */
class ParametersTest {
    /** The example declaration. */
    private static final Map<String, Object> DECLARED = map("""
            {"date": {"type": "date", "required": true},
             "region": {"enum": ["cn", "us"]},
             "limit": {"type": "integer", "min": 1, "max": 1000, "default": 100},
             "note": {"type": "string", "pattern": "^[a-z ]{0,40}$"},
             "files": {"type": "array", "items": {"pattern": "[a-z]+\\\\.csv"}, "max": 3},
             "dryRun": {"type": "boolean", "default": false}}""");

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(String json) {
        return (Map<String, Object>) Json.parse(json);
    }

    private static Map<String, Object> task(Object params, String trigger) {
        Map<String, Object> t = new LinkedHashMap<>(map("{\"taskName\":\"t\",\"trigger\":" + trigger
                + ",\"action\":{\"type\":\"shell\",\"command\":\"echo {{params.date}}\"}}"));
        t.put("params", params);
        return t;
    }

    private static Parameters declared() {
        return TaskDefinitionCodec.parse(task(DECLARED, "{\"type\":\"event\"}"), Set.of())
                .definition()
                .params();
    }

    @Test
    void values_are_checked_written_in_their_type_and_completed_with_defaults() {
        Map<String, Object> given = new LinkedHashMap<>();
        given.put("date", "2026-11-30");
        given.put("region", "cn");
        given.put("limit", "250"); // a form or the CLI sends text
        given.put("files", List.of("a.csv", "b.csv"));
        assertThat(declared().check(given))
                .containsExactly(
                        Map.entry("date", "2026-11-30"),
                        Map.entry("region", "cn"),
                        Map.entry("limit", 250L),
                        Map.entry("files", List.of("a.csv", "b.csv")),
                        Map.entry("dryRun", false));
    }

    static Stream<Arguments> refusals() {
        return Stream.of(
                Arguments.of(Map.of("region", "cn"), "params.date", "is required"),
                Arguments.of(Map.of("date", "2026-02-30"), "params.date", "must be a date"),
                Arguments.of(Map.of("date", "2026-11-30", "region", "eu"), "params.region", "must be one of cn, us"),
                Arguments.of(Map.of("date", "2026-11-30", "limit", 0), "params.limit", "must be at least 1"),
                Arguments.of(Map.of("date", "2026-11-30", "limit", 2.5), "params.limit", "must be an integer"),
                Arguments.of(Map.of("date", "2026-11-30", "limit", "1e3x"), "params.limit", "must be an integer"),
                Arguments.of(Map.of("date", "2026-11-30", "note", "x; rm -rf /"), "params.note", "must match"),
                Arguments.of(
                        Map.of("date", "2026-11-30", "files", List.of("a.csv", "../etc/passwd")),
                        "params.files[1]",
                        "must match"),
                Arguments.of(
                        Map.of("date", "2026-11-30", "files", List.of("a.csv", "b.csv", "c.csv", "d.csv")),
                        "params.files",
                        "at most 3 elements"),
                Arguments.of(Map.of("date", "2026-11-30", "dryRun", "yes"), "params.dryRun", "must be true or false"),
                Arguments.of(
                        Map.of("date", "2026-11-30", "who", "x"),
                        "params.who",
                        "is not declared; this task takes date, region"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("refusals")
    void a_wrong_value_is_refused_naming_the_parameter(Map<String, Object> given, String field, String reason) {
        assertThatThrownBy(() -> declared().check(given))
                .isInstanceOf(ValidationException.class)
                .satisfies(e -> assertThat(((ValidationException) e).errors()).anySatisfy(f -> {
                    assertThat(f.field()).isEqualTo(field);
                    assertThat(f.reason()).contains(reason);
                }));
    }

    @Test
    void a_task_without_declarations_takes_what_it_is_given() {
        assertThat(Parameters.NONE.check(Map.of("anything", 1))).isEqualTo(Map.of("anything", 1));
    }

    @Test
    void defaults_complete_a_stored_runs_values_without_checking_them() {
        assertThat(declared().withDefaults(Map.of("date", "x")))
                .containsEntry("limit", 100L)
                .containsEntry("dryRun", false)
                .containsEntry("date", "x");
    }

    static Stream<Arguments> badDeclarations() {
        return Stream.of(
                Arguments.of("{\"a\": {\"type\": \"uuid\"}}", "params.a.type", "unknown type 'uuid'"),
                Arguments.of(
                        "{\"a\": {\"type\": \"integer\", \"default\": \"x\"}}",
                        "params.a.default",
                        "must be an integer"),
                Arguments.of(
                        "{\"a\": {\"enum\": [\"x\"], \"default\": \"y\"}}", "params.a.default", "must be one of x"),
                Arguments.of(
                        "{\"a\": {\"required\": true, \"default\": \"y\"}}",
                        "params.a.default",
                        "a required parameter has no default"),
                Arguments.of("{\"a\": {\"pattern\": \"(\"}}", "params.a.pattern", "not a regular expression"),
                Arguments.of("{\"a\": {\"type\": \"boolean\", \"min\": 1}}", "params.a.min", "applies to numbers"),
                Arguments.of(
                        "{\"a\": {\"type\": \"integer\", \"min\": 5, \"max\": 1}}",
                        "params.a.max",
                        "must not be less than min"),
                Arguments.of("{\"a\": {\"enum\": [\"x\", \"x\"]}}", "params.a.enum[1]", "is listed twice"),
                Arguments.of("{\"a b\": {}}", "params.a b", "may hold only letters"),
                Arguments.of("{\"a\": {\"colour\": \"red\"}}", "params.a.colour", "unknown field"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badDeclarations")
    void a_bad_declaration_is_refused_when_the_task_is_saved(String params, String field, String reason) {
        Map<String, Object> json = task(map(params), "{\"type\":\"event\"}");
        json.put("action", Map.of("type", "shell", "command", "true"));
        assertThatThrownBy(() -> TaskDefinitionCodec.parse(json, Set.of()))
                .isInstanceOf(ValidationException.class)
                .satisfies(e -> assertThat(((ValidationException) e).errors()).anySatisfy(f -> {
                    assertThat(f.field()).isEqualTo(field);
                    assertThat(f.reason()).contains(reason);
                }));
    }

    @Test
    void a_template_may_use_only_declared_parameters() {
        Map<String, Object> json = task(map("{\"day\": {\"type\": \"date\"}}"), "{\"type\":\"event\"}");
        assertThatThrownBy(() -> TaskDefinitionCodec.parse(json, Set.of()))
                .satisfies(e -> assertThat(((ValidationException) e).errors())
                        .singleElement()
                        .satisfies(f -> {
                            assertThat(f.field()).isEqualTo("action.command");
                            assertThat(f.reason())
                                    .contains("uses {{params.date}}, which \"params\" does not declare; declared: day");
                        }));
    }

    @Test
    void a_scheduled_task_cannot_require_a_parameter() {
        Map<String, Object> json = task(
                map("{\"date\": {\"type\": \"date\", \"required\": true}}"),
                "{\"type\":\"cron\",\"expression\":\"0 2 * * *\"}");
        assertThatThrownBy(() -> TaskDefinitionCodec.parse(json, Set.of()))
                .satisfies(e -> assertThat(((ValidationException) e).errors())
                        .singleElement()
                        .satisfies(f -> assertThat(f.field()).isEqualTo("params.date.required")));
    }

    @Test
    void declarations_round_trip_through_their_json() {
        TaskDefinition def = TaskDefinitionCodec.parse(task(DECLARED, "{\"type\":\"event\"}"), Set.of())
                .definition();
        Map<String, Object> json = TaskDefinitionCodec.toJson(def);
        TaskDefinition again = TaskDefinitionCodec.parse(Json.parse(Json.write(json)), Set.of())
                .definition();
        assertThat(again).isEqualTo(def);
        assertThat(again.params().specs().get("limit").max()).isEqualByComparingTo(new BigDecimal("1000"));
    }
}
