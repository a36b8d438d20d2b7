package dev.ax.domain.access;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * What one token or person may do: a {@code role} everywhere, a higher role inside some {@code teams}, and, for an
 * executor's token, the executor {@code groups} it may serve (empty = every group).
 *
 * <p>A thing without a team (a task saved without {@code "team"}) is only the global role's: a team's grant reaches its
 * own tasks and nothing else.
 */
public record Grants(Role role, Map<String, Role> teams, List<String> groups) {
    public Grants {
        Objects.requireNonNull(role, "role");
        teams = teams == null ? Map.of() : Map.copyOf(new TreeMap<>(teams));
        groups = groups == null ? List.of() : List.copyOf(groups);
    }

    /** A role everywhere, no team grants, every group. */
    public static Grants of(Role role) {
        return new Grants(role, Map.of(), List.of());
    }

    /** The role this holder has for things of {@code team} (null: things of no team). */
    public Role roleIn(String team) {
        return team == null ? role : Role.higher(role, teams.get(team));
    }

    /**
     * May the holder do what needs {@code needed} on something of {@code team}? The executor protocol is never a team's:
     * a team's admin edits its tasks but does not speak for an executor.
     */
    public boolean allows(Role needed, String team) {
        return needed.admits(needed == Role.EXECUTOR ? role : roleIn(team));
    }

    /** May the holder do what needs {@code needed} on things of every one of {@code teams}? */
    public boolean allowsAll(Role needed, Collection<String> teams) {
        return teams.stream().allMatch(t -> allows(needed, t));
    }

    /** True when some team grant, though not the global role, admits {@code needed}: only then does the target's team matter. */
    public boolean mayDependOnTeam(Role needed) {
        return needed != Role.EXECUTOR
                && !needed.admits(role)
                && teams.values().stream().anyMatch(needed::admits);
    }

    /** "viewer; operator in data, admin in web" or "executor for groups orders": how refusals and lists name them. */
    public String describe() {
        StringBuilder s = new StringBuilder(role.wireName());
        if (!groups.isEmpty()) {
            s.append(" for groups ").append(String.join(", ", groups));
        }
        String inTeams = String.join(
                ", ",
                teams.entrySet().stream()
                        .map(e -> e.getValue().wireName() + " in " + e.getKey())
                        .toList());
        return inTeams.isEmpty() ? s.toString() : s.append("; ").append(inTeams).toString();
    }

    /** May an executor holding these grants serve all of {@code wanted}? */
    public boolean mayServe(Collection<String> wanted) {
        return groups.isEmpty() || groups.containsAll(wanted);
    }
}
