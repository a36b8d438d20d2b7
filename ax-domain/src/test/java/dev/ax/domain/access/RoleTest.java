package dev.ax.domain.access;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class RoleTest {
    @ParameterizedTest(name = "route {0}, token {1} -> {2}")
    @CsvSource({
        "PUBLIC, PUBLIC, true",
        "VIEWER, VIEWER, true",
        "VIEWER, OPERATOR, true",
        "VIEWER, ADMIN, true",
        "VIEWER, EXECUTOR, false",
        "OPERATOR, VIEWER, false",
        "OPERATOR, OPERATOR, true",
        "OPERATOR, ADMIN, true",
        "OPERATOR, EXECUTOR, false",
        "ADMIN, OPERATOR, false",
        "ADMIN, ADMIN, true",
        "ADMIN, EXECUTOR, false",
        "EXECUTOR, EXECUTOR, true",
        "EXECUTOR, ADMIN, true",
        "EXECUTOR, OPERATOR, false",
        "EXECUTOR, VIEWER, false",
        "VIEWER, PUBLIC, false"
    })
    void admits_by_the_role_table(Role route, Role token, boolean admitted) {
        assertThat(route.admits(token)).isEqualTo(admitted);
    }

    @ParameterizedTest
    @CsvSource({"admin, ADMIN", "Viewer, VIEWER", "executor, EXECUTOR"})
    void reads_stored_role_names(String stored, Role role) {
        assertThat(Role.ofToken(stored)).contains(role);
    }

    @ParameterizedTest
    @CsvSource({"public", "root", "''"})
    void ignores_unknown_stored_roles(String stored) {
        assertThat(Role.ofToken(stored)).isEmpty();
    }
}
