package dev.ax.domain.access;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class GrantsTest {
    /** A viewer everywhere, an operator of data, an admin of web. */
    static final Grants ALICE = new Grants(Role.VIEWER, Map.of("data", Role.OPERATOR, "web", Role.ADMIN), List.of());

    @ParameterizedTest(name = "{0} on a thing of team {1}: {2}")
    @CsvSource(
            nullValues = "none",
            value = {
                "VIEWER, none, true",
                "OPERATOR, none, false",
                "VIEWER, data, true",
                "OPERATOR, data, true",
                "ADMIN, data, false",
                "OPERATOR, finance, false",
                "VIEWER, finance, true",
                "ADMIN, web, true",
                "EXECUTOR, web, false"
            })
    void a_team_grant_reaches_that_teams_things_and_nothing_else(Role needed, String team, boolean allowed) {
        assertThat(ALICE.allows(needed, team)).isEqualTo(allowed);
    }

    @ParameterizedTest(name = "needs {0}: depends on the team = {1}")
    @CsvSource({"VIEWER, false", "OPERATOR, true", "ADMIN, true", "EXECUTOR, false"})
    void the_target_team_matters_only_where_a_team_grant_could_admit_what_the_global_role_does_not(
            Role needed, boolean depends) {
        assertThat(ALICE.mayDependOnTeam(needed)).isEqualTo(depends);
    }

    @ParameterizedTest
    @CsvSource({"orders, true", "billing, false"})
    void an_executor_token_with_groups_serves_only_those(String group, boolean serves) {
        Grants exec = new Grants(Role.EXECUTOR, Map.of(), List.of("orders", "shipping"));
        assertThat(exec.mayServe(List.of(group))).isEqualTo(serves);
        assertThat(Grants.of(Role.EXECUTOR).mayServe(List.of(group))).isTrue();
    }

    @ParameterizedTest
    @CsvSource(
            nullValues = "none",
            value = {
                "VIEWER, OPERATOR, OPERATOR",
                "ADMIN, VIEWER, ADMIN",
                "none, VIEWER, VIEWER",
                "OPERATOR, none, OPERATOR"
            })
    void the_higher_role_wins(Role a, Role b, Role higher) {
        assertThat(Role.higher(a, b)).isEqualTo(higher);
    }
}
