package dev.ax.domain.access;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.domain.task.Approval;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ApproverTest {
    static final Principal ALICE =
            new Principal("alice", "sso", new Grants(Role.VIEWER, Map.of("data", Role.OPERATOR), List.of()));
    static final Principal OLGA = Principal.of("olga", Role.OPERATOR);
    static final Principal VERA = Principal.of("vera", Role.VIEWER);

    @ParameterizedTest(name = "approvers [{0}], task of team {1}: alice {2}, olga {3}, vera {4}")
    @CsvSource(
            nullValues = "none",
            value = {
                "'', data, true, true, false",
                "'', finance, false, true, false",
                "'', none, false, true, false",
                "alice, finance, true, false, false",
                "operator, data, true, true, false",
                "operator, finance, false, true, false",
                "team:data/operator, finance, true, true, false",
                "team:data/admin, data, false, false, false",
                "viewer, none, true, true, true",
                "vera, data, false, false, true"
            })
    void approvers_name_people_roles_for_the_task_and_roles_in_a_team(
            String approvers, String team, boolean alice, boolean olga, boolean vera) {
        Approval approval =
                new Approval(approvers.isEmpty() ? List.of() : List.of(approvers.split(" ")), null, false, null);
        assertThat(approval.allows(ALICE, team)).as("alice").isEqualTo(alice);
        assertThat(approval.allows(OLGA, team)).as("olga").isEqualTo(olga);
        assertThat(approval.allows(VERA, team)).as("vera").isEqualTo(vera);
    }

    @ParameterizedTest
    @CsvSource({"team:data", "team:/operator", "team:data/executor", "team:data/root"})
    void a_team_entry_must_name_a_team_and_a_persons_role(String entry) {
        assertThat(Approver.parse(entry)).isEmpty();
    }
}
