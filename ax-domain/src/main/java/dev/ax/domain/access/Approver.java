package dev.ax.domain.access;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One entry of {@code policy.approval.approvers}: a person ({@code alice}), a role for the task's own team
 * ({@code operator}: whoever is an operator or above for the task), or a role in a named team
 * ({@code team:data/operator}).
 */
public sealed interface Approver {
    Pattern TEAM_ROLE = Pattern.compile("team:([A-Za-z0-9][A-Za-z0-9_.-]*)/(viewer|operator|admin)");
    String FORMAT = "a person's name, a role (viewer, operator, admin) or team:<team>/<role>";

    /** May {@code who} decide on a run of a task of {@code taskTeam}? */
    boolean admits(Principal who, String taskTeam);

    record Person(String name) implements Approver {
        @Override
        public boolean admits(Principal who, String taskTeam) {
            return who.name().equals(name);
        }
    }

    record RoleForTask(Role role) implements Approver {
        @Override
        public boolean admits(Principal who, String taskTeam) {
            return who.allows(role, taskTeam);
        }
    }

    record RoleInTeam(String team, Role role) implements Approver {
        @Override
        public boolean admits(Principal who, String taskTeam) {
            return who.allows(role, team);
        }
    }

    /** The entry as written; empty when it starts with {@code team:} but is not {@code team:<team>/<role>}. */
    static Optional<Approver> parse(String entry) {
        if (entry.startsWith("team:")) {
            Matcher m = TEAM_ROLE.matcher(entry);
            return m.matches()
                    ? Optional.of(
                            new RoleInTeam(m.group(1), Role.ofToken(m.group(2)).orElseThrow()))
                    : Optional.empty();
        }
        Optional<Role> role = Role.ofToken(entry).filter(Role::isPersonRole);
        return Optional.of(role.<Approver>map(RoleForTask::new).orElseGet(() -> new Person(entry)));
    }
}
