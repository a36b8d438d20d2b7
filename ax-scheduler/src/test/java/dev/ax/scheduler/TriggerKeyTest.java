package dev.ax.scheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ax.domain.task.ValidationException;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/** What a trigger key may be, and when two requests are the same request. */
class TriggerKeyTest {
    @ParameterizedTest
    @ValueSource(strings = {"a", "order-7", "2026-12-01:shop 12", "~!@#$%^&*()_+{}|:\"<>?`-=[]\\;',./"})
    void accepts_one_to_200_printable_ascii_characters(String value) {
        assertThat(new TriggerKey(value).value()).isEqualTo(value);
        assertThat(new TriggerKey("x".repeat(200)).value()).hasSize(200);
    }

    static Stream<Arguments> notKeys() {
        return Stream.of(
                Arguments.of("", "must not be empty"),
                Arguments.of("x".repeat(201), "at most 200 characters, was 201"),
                Arguments.of("tab\there", "character 4 is U+0009"),
                Arguments.of("caf\u00e9", "character 4 is U+00E9"),
                Arguments.of("line\nbreak", "printable ASCII"));
    }

    @ParameterizedTest
    @MethodSource("notKeys")
    void refuses_anything_else_naming_the_header_and_the_reason(String value, String reason) {
        assertThatThrownBy(() -> new TriggerKey(value)).isInstanceOfSatisfying(ValidationException.class, e -> {
            assertThat(e.errors()).hasSize(1);
            assertThat(e.errors().getFirst().field()).isEqualTo("Idempotency-Key");
            assertThat(e.errors().getFirst().reason()).contains(reason);
        });
        assertThatThrownBy(() -> TriggerKey.of("X-AX-Request-ID", value))
                .isInstanceOfSatisfying(
                        ValidationException.class,
                        e -> assertThat(e.errors().getFirst().field()).isEqualTo("X-AX-Request-ID"));
        assertThatThrownBy(() -> new TriggerKey(null)).isInstanceOf(ValidationException.class);
    }

    @Test
    void the_same_request_hashes_the_same_whatever_the_order_of_its_fields() {
        String hash = TriggerKey.requestHash("job", Map.of("a", 1, "b", Map.of("x", "1", "y", "2")), false);

        assertThat(hash).hasSize(64).matches("[0-9a-f]+");
        assertThat(TriggerKey.requestHash("job", new TreeMap<>(Map.of("b", Map.of("y", "2", "x", "1"), "a", 1)), false))
                .isEqualTo(hash);
        assertThat(TriggerKey.requestHash("job", null, false))
                .isEqualTo(TriggerKey.requestHash("job", Map.of(), false));
    }

    @Test
    void another_task_parameter_value_or_force_is_another_request() {
        String hash = TriggerKey.requestHash("job", Map.of("a", 1), false);

        assertThat(TriggerKey.requestHash("job2", Map.of("a", 1), false)).isNotEqualTo(hash);
        assertThat(TriggerKey.requestHash("job", Map.of("a", 2), false)).isNotEqualTo(hash);
        assertThat(TriggerKey.requestHash("job", Map.of("a", "1"), false))
                .as("a string is not a number")
                .isNotEqualTo(hash);
        assertThat(TriggerKey.requestHash("job", Map.of("a", 1, "b", 1), false)).isNotEqualTo(hash);
        assertThat(TriggerKey.requestHash("job", Map.of("a", 1), true)).isNotEqualTo(hash);
    }
}
