package dev.ax.domain.task;

import dev.ax.domain.access.Approver;
import dev.ax.domain.access.Principal;
import dev.ax.domain.access.Role;
import java.util.List;
import java.util.Optional;

/**
 * A person must approve each run before it starts ({@code policy.approval}). An
 * optional {@code preview} action runs first (e.g. "count the rows that would change") and its
 * output is shown with the request.
 *
 * @param approvers      who may decide: people by name, roles for the task's team ({@code operator}: an operator or
 *                       admin of the task's team, or everywhere), roles in a named team ({@code team:data/operator});
 *                       empty = any operator or admin of the task's team
 * @param timeoutSeconds an undecided request expires after this and the run is CANCELED;
 *                       {@code null} = it waits for ever
 * @param fourEyes       whoever triggered the run may not approve it: two people take part
 * @param preview        runs before the request is decided; {@code null} = none
 */
public record Approval(List<String> approvers, Long timeoutSeconds, boolean fourEyes, Action preview) {
    public Approval {
        approvers = approvers == null ? List.of() : List.copyOf(approvers);
    }

    /** May {@code who} decide on a run of a task of {@code taskTeam} (null: a task of no team)? */
    public boolean allows(Principal who, String taskTeam) {
        if (approvers.isEmpty()) {
            return who.allows(Role.OPERATOR, taskTeam);
        }
        return approvers.stream().map(Approver::parse).flatMap(Optional::stream).anyMatch(a -> a.admits(who, taskTeam));
    }

    /** Who may decide, for people to read. */
    public String describeApprovers() {
        return approvers.isEmpty() ? "any operator or admin of the task's team" : String.join(", ", approvers);
    }
}
