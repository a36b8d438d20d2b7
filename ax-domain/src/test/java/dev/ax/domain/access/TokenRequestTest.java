package dev.ax.domain.access;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ax.domain.task.FieldError;
import dev.ax.domain.task.ValidationException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class TokenRequestTest {
    @Test
    void a_persons_token_with_team_roles_and_an_expiry() {
        TokenRequest t = TokenRequest.parse(
                Map.of("name", "alice", "role", "viewer", "teams", Map.of("data", "operator"), "expiresIn", "P90D"));
        assertThat(t.name()).isEqualTo("alice");
        assertThat(t.owner()).isEqualTo("alice");
        assertThat(t.grants()).isEqualTo(new Grants(Role.VIEWER, Map.of("data", Role.OPERATOR), List.of()));
        assertThat(t.expiresIn()).isEqualTo(Duration.ofDays(90));
    }

    @Test
    void an_executors_token_limited_to_groups() {
        TokenRequest t =
                TokenRequest.parse(Map.of("name", "exec-orders", "role", "executor", "groups", List.of("orders")));
        assertThat(t.grants().groups()).containsExactly("orders");
        assertThat(t.expiresIn()).isNull();
    }

    static Stream<Arguments> bad() {
        return Stream.of(
                Arguments.of(Map.of("role", "viewer"), "name", "is required"),
                Arguments.of(Map.of("name", "a b", "role", "viewer"), "name", "may contain only"),
                Arguments.of(Map.of("name", "a", "role", "root"), "role", "'root' is not a role"),
                Arguments.of(
                        Map.of("name", "a", "role", "viewer", "teams", Map.of("data", "executor")),
                        "teams.data",
                        "'executor' is not a role"),
                Arguments.of(
                        Map.of("name", "a", "role", "executor", "teams", Map.of("data", "admin")),
                        "teams",
                        "serves groups, not teams"),
                Arguments.of(
                        Map.of("name", "a", "role", "viewer", "groups", List.of("x")),
                        "groups",
                        "only an executor's token"),
                Arguments.of(
                        Map.of("name", "a", "role", "executor", "groups", List.of()), "groups", "must name 1 to 100"),
                Arguments.of(
                        Map.of("name", "a", "role", "executor", "groups", List.of("x", "x")),
                        "groups[1]",
                        "named twice"),
                Arguments.of(
                        Map.of("name", "a", "role", "viewer", "expiresIn", "90 days"),
                        "expiresIn",
                        "not an ISO-8601 duration"),
                Arguments.of(Map.of("name", "a", "role", "viewer", "expiresIn", "-P1D"), "expiresIn", "more than zero"),
                Arguments.of(Map.of("name", "a", "role", "viewer", "token", "mine"), "token", "unknown field"));
    }

    @ParameterizedTest(name = "{1}: {2}")
    @MethodSource("bad")
    void a_bad_request_names_the_field_and_why(Map<String, Object> json, String field, String reason) {
        assertThatThrownBy(() -> TokenRequest.parse(json))
                .isInstanceOfSatisfying(
                        ValidationException.class,
                        e -> assertThat(e.errors()).anySatisfy(err -> {
                            assertThat(err.field()).isEqualTo(field);
                            assertThat(err.reason()).contains(reason);
                        }));
    }

    @Test
    void a_team_needs_a_plain_name() {
        assertThatThrownBy(() -> TeamRequest.parse(Map.of("name", "da ta")))
                .isInstanceOfSatisfying(
                        ValidationException.class,
                        e -> assertThat(e.errors())
                                .extracting(FieldError::field)
                                .containsExactly("name"));
        assertThat(TeamRequest.parse(Map.of("name", "data", "description", "the data team"))
                        .description())
                .isEqualTo("the data team");
    }
}
