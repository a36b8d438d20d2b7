package dev.ax.domain.task;

import java.util.List;
import java.util.Set;

/**
 * A person must approve each run before it starts ({@code policy.approval}). An
 * optional {@code preview} action runs first (e.g. "count the rows that would change") and its
 * output is shown with the request.
 *
 * @param approvers      token names or roles ({@code operator}, {@code admin}) that may decide;
 *                       empty = any operator or admin
 * @param timeoutSeconds an undecided request expires after this and the run is CANCELED;
 *                       {@code null} = it waits for ever
 * @param fourEyes       whoever triggered the run may not approve it
 * @param preview        runs before the request is decided; {@code null} = none
 */
public record Approval(List<String> approvers, Long timeoutSeconds, boolean fourEyes, Action preview) {
    static final Set<String> ROLES = Set.of("viewer", "operator", "admin");

    public Approval {
        approvers = approvers == null ? List.of() : List.copyOf(approvers);
    }

    /** May this token (name and role) decide? */
    public boolean allows(String actor, String role) {
        if (approvers.isEmpty()) {
            return "operator".equals(role) || "admin".equals(role);
        }
        return approvers.contains(actor) || (role != null && ROLES.contains(role) && approvers.contains(role));
    }
}
