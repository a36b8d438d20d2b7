package dev.ax.domain.task;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The top-level {@code environment} labels of a task definition. */
class TaskDefinitionEnvironmentTest {
    static Map<String, Object> task(Object environment) {
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("taskName", "deploy");
        json.put("trigger", Map.of("type", "event"));
        json.put("action", Map.of("type", "shell", "command", "true"));
        if (environment != null) {
            json.put("environment", environment);
        }
        return json;
    }

    @Test
    void labels_are_read_and_written_back() {
        TaskDefinition def =
                TaskDefinitionCodec.parse(task(List.of("prod", "eu")), Set.of()).definition();
        assertThat(def.environment()).containsExactly("prod", "eu");
        Map<String, Object> json = TaskDefinitionCodec.toJson(def);
        assertThat(json.get("environment")).isEqualTo(List.of("prod", "eu"));
        assertThat(TaskDefinitionCodec.parse(json, Set.of()).definition()).isEqualTo(def);
    }

    @Test
    void no_labels_means_any_executor_and_the_stored_form_stays_as_before() {
        TaskDefinition def = TaskDefinitionCodec.parse(task(null), Set.of()).definition();
        assertThat(def.environment()).isEmpty();
        assertThat(TaskDefinitionCodec.toJson(def)).doesNotContainKey("environment");
    }

    @Test
    void bad_labels_name_the_field() {
        assertField(task("prod"), "environment");
        assertField(task(List.of("prod", "prod")), "environment[1]");
        assertField(task(List.of("pr od")), "environment[0]");
        assertField(task(List.of(3)), "environment[0]");
    }

    static void assertField(Map<String, Object> json, String field) {
        assertThatThrownBy(() -> TaskDefinitionCodec.parse(json, Set.of()))
                .isInstanceOfSatisfying(
                        ValidationException.class,
                        e -> assertThat(e.errors())
                                .anySatisfy(f -> assertThat(f.field()).isEqualTo(field)));
    }
}
