package dev.ax.scheduler;

import dev.ax.domain.access.TeamRequest;
import dev.ax.domain.task.ValidationException;
import dev.ax.store.Store;
import dev.ax.store.TeamStore.TeamRow;
import dev.ax.store.Tx;
import java.util.ArrayList;
import java.util.List;

/**
 * Teams: names that tasks, workflows and tokens' grants refer to. A task is saved only into a team that exists, and a
 * team is deleted only when nothing refers to it any more: both decided under row locks in the change's transaction.
 */
public final class Teams {
    private final Store store;

    Teams(Store store) {
        this.store = store;
    }

    public TeamRow create(Object json, String actor) {
        TeamRequest request = TeamRequest.parse(json);
        return store.tx(tx -> {
            if (!store.teams().create(tx, request.name(), request.description(), actor)) {
                throw new ConflictException("team " + request.name() + " already exists");
            }
            return store.teams().find(tx, request.name()).orElseThrow();
        });
    }

    public List<TeamRow> list() {
        return store.tx(tx -> store.teams().all(tx));
    }

    public TeamRow get(String name) {
        return store.tx(tx -> store.teams().find(tx, name)).orElseThrow(() -> new NotFoundException("no team " + name));
    }

    /** Deletes a team that no task, workflow or token refers to; a 409 names what still does. */
    public void delete(String name, String actor) {
        store.tx(tx -> {
            store.teams().lock(tx, name).orElseThrow(() -> new NotFoundException("no team " + name));
            List<String> users = new ArrayList<>();
            store.teams().tasksOf(tx, name).forEach(t -> users.add("task " + t));
            store.teams().workflowsOf(tx, name).forEach(w -> users.add("workflow " + w));
            store.tokens().grantingIn(tx, name).forEach(t -> users.add("token " + t));
            if (!users.isEmpty()) {
                throw new ConflictException("team " + name + " is still used by " + String.join(", ", users)
                        + "; move or delete those first");
            }
            store.teams().delete(tx, name);
            return null;
        });
    }

    /**
     * Refuses (400 on {@code field}) a team that does not exist; one that does is kept from being deleted until
     * {@code tx} ends, so a save into it and its delete never both commit. A null team is no team: fine.
     */
    static void requireExists(Tx tx, Store store, String team, String field) {
        if (team != null && store.teams().hold(tx, team).isEmpty()) {
            throw new ValidationException(
                    field, "there is no team " + team + "; an admin creates it first (ax team create " + team + ")");
        }
    }
}
