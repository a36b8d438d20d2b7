package dev.ax.domain.task;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.ax.domain.task.Dependency.Scope;
import dev.ax.domain.task.DependencyPolicy.OnUpstreamFailure;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@code dependsOn} and {@code dependencyPolicy}: what parses, what it writes back, and each error on its field. */
class DependencyCodecTest {
    private static final String BASE = """
            { "taskName": "report",
              "trigger": { "type": "cron", "expression": "0 2 * * *", "timezone": "Asia/Shanghai" },
              "action": { "type": "shell", "command": "echo {{date}}" } %s }
            """;

    @org.junit.jupiter.api.Test
    void parses_every_scope_and_writes_it_back() {
        TaskDefinition d = parse(
                ", \"dependsOn\": [{\"task\":\"sync_layer1\"}, {\"task\":\"fx\",\"scope\":\"latest\",\"window\":\"PT6H\"},"
                        + " {\"scope\":\"previousSlot\"}], \"dependencyPolicy\": {\"onUpstreamFailure\":\"SKIP\",\"waitDeadline\":\"PT3H\"}");
        assertThat(d.dependencies())
                .isEqualTo(new DependencyPolicy(
                        List.of(
                                new Dependency("sync_layer1", Scope.SAME_DATE, null),
                                new Dependency("fx", Scope.LATEST, Duration.ofHours(6)),
                                new Dependency("report", Scope.PREVIOUS_SLOT, null)),
                        OnUpstreamFailure.SKIP,
                        Duration.ofHours(3)));
        Map<String, Object> json = TaskDefinitionCodec.toJson(d);
        assertThat(json.get("dependsOn"))
                .isEqualTo(List.of(
                        Map.of("task", "sync_layer1", "scope", "sameDate"),
                        Map.of("task", "fx", "scope", "latest", "window", "PT6H"),
                        Map.of("task", "report", "scope", "previousSlot")));
        assertThat(TaskDefinitionCodec.parse(json, Set.of()).definition()).isEqualTo(d);
        assertThat(d.dependencies().waitsOn("report", "sync_layer1")).isTrue();
        assertThat(d.dependencies().waitsOn("report", "report")).isTrue();
        assertThat(d.dependencies().waitsOn("report", "other")).isFalse();
    }

    @org.junit.jupiter.api.Test
    void defaults_and_no_dependencies() {
        TaskDefinition none = parse("");
        assertThat(none.dependencies()).isEqualTo(DependencyPolicy.NONE);
        assertThat(TaskDefinitionCodec.toJson(none)).doesNotContainKeys("dependsOn", "dependencyPolicy");
        TaskDefinition d = parse(", \"dependsOn\": [{\"task\":\"a\",\"scope\":\"sameDate\"}]");
        assertThat(d.dependencies().onUpstreamFailure()).isEqualTo(OnUpstreamFailure.WAIT);
        assertThat(d.dependencies().waitDeadline()).isEqualTo(DependencyPolicy.DEFAULT_WAIT_DEADLINE);
    }

    @ParameterizedTest(name = "{0} -> {1}: {2}")
    @CsvSource(
            delimiter = '|',
            value = {
                "\"dependsOn\": {}                                          | dependsOn                            | must be an array",
                "\"dependsOn\": [\"a\"]                                     | dependsOn[0]                         | must be an object",
                "\"dependsOn\": [{\"task\":\"a\",\"scope\":\"sometimes\"}]  | dependsOn[0].scope                   | unknown scope 'sometimes'",
                "\"dependsOn\": [{\"scope\":\"sameDate\"}]                  | dependsOn[0].task                    | is required",
                "\"dependsOn\": [{\"task\":\"bad name\"}]                   | dependsOn[0].task                    | letters, digits",
                "\"dependsOn\": [{\"task\":\"report\"}]                     | dependsOn[0].task                    | only with scope previousSlot",
                "\"dependsOn\": [{\"task\":\"x\",\"scope\":\"previousSlot\"}] | dependsOn[0].task                  | own previous run",
                "\"dependsOn\": [{\"task\":\"a\",\"scope\":\"latest\"}]     | dependsOn[0].window                  | is required",
                "\"dependsOn\": [{\"task\":\"a\",\"scope\":\"latest\",\"window\":\"6 hours\"}] | dependsOn[0].window | ISO-8601 duration",
                "\"dependsOn\": [{\"task\":\"a\",\"scope\":\"latest\",\"window\":\"-PT1H\"}]   | dependsOn[0].window | positive",
                "\"dependsOn\": [{\"task\":\"a\",\"window\":\"PT1H\"}]      | dependsOn[0].window                  | only to scope latest",
                "\"dependsOn\": [{\"task\":\"a\",\"bogus\":1}]              | dependsOn[0].bogus                   | unknown field",
                "\"dependsOn\": [{\"task\":\"a\"},{\"task\":\"a\"}]         | dependsOn[1]                         | repeats",
                "\"dependencyPolicy\": {\"onUpstreamFailure\":\"WAIT\"}     | dependencyPolicy                     | only to a task with dependsOn",
                "\"dependsOn\": [{\"task\":\"a\"}], \"dependencyPolicy\": {\"onUpstreamFailure\":\"RETRY\"} | dependencyPolicy.onUpstreamFailure | WAIT, SKIP or FAIL",
                "\"dependsOn\": [{\"task\":\"a\"}], \"dependencyPolicy\": {\"waitDeadline\":\"soon\"}       | dependencyPolicy.waitDeadline      | ISO-8601"
            })
    void refuses(String fields, String field, String reason) {
        ValidationException e = catchThrowableOfType(
                ValidationException.class,
                () -> TaskDefinitionCodec.parse(Json.parse(BASE.formatted(", " + fields)), Set.of()));
        assertThat(e).isNotNull();
        assertThat(e.errors()).hasSize(1);
        assertThat(e.errors().getFirst().field()).isEqualTo(field);
        assertThat(e.errors().getFirst().reason()).contains(reason);
    }

    private static TaskDefinition parse(String extra) {
        return TaskDefinitionCodec.parse(Json.parse(BASE.formatted(extra)), Set.of())
                .definition();
    }
}
