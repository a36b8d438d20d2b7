package dev.ax.api;

import dev.ax.domain.access.Grants;
import dev.ax.domain.access.Principal;
import dev.ax.store.Store;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * An executor's token limited to some groups speaks only for those groups and only for the executor ids it
 * registered: it may register and poll for its groups alone, and every report it sends must be for an id it
 * registered, so that it can neither take another group's work nor report on another executor's runs. A token for
 * every group (and an admin's) is not bound: it could do all of that anyway.
 */
final class ExecutorBindings {
    private final Store store;
    /** Executor id → the token it registered with, as this node last saw it. */
    private final ConcurrentHashMap<String, String> bound = new ConcurrentHashMap<>();

    ExecutorBindings(Store store) {
        this.store = store;
    }

    /** Before a registration: the token may serve those groups, and the id is not another scoped token's. */
    void checkRegister(Principal who, String executorId, List<String> groups) {
        checkGroups(who, groups);
        if (scoped(who)) {
            Optional<String> owner = store.tx(tx -> store.executors().tokenOf(tx, executorId));
            String token = tokenName(who);
            if (owner.isPresent()
                    && !owner.get().equals(token)
                    && store.tx(tx -> store.tokens().byName(tx, owner.get())).isPresent()) {
                throw ApiException.forbidden("executor id " + executorId + " is registered with token " + owner.get()
                        + "; token " + token + " may not speak for it (start the executor with another --id)");
            }
        }
    }

    /** After a registration: the id is this token's now. */
    void bind(Principal who, String executorId) {
        String token = tokenName(who);
        store.tx(tx -> {
            store.executors().bind(tx, executorId, token);
            return null;
        });
        bound.put(executorId, token);
    }

    void checkGroups(Principal who, List<String> groups) {
        Grants g = who.grants();
        if (!g.mayServe(groups)) {
            throw ApiException.forbidden("token " + tokenName(who) + " serves groups " + String.join(", ", g.groups())
                    + " only; it may not " + "serve "
                    + String.join(
                            ", ",
                            groups.stream().filter(x -> !g.groups().contains(x)).toList()));
        }
    }

    /** A report: a scoped token must have registered the executor id it reports for. */
    void checkReport(Principal who, String executorId) {
        if (!scoped(who)) {
            return;
        }
        String token = tokenName(who);
        String owner = bound.get(executorId);
        if (owner == null) {
            owner = store.tx(tx -> store.executors().tokenOf(tx, executorId)).orElse(null);
            if (owner != null) {
                bound.put(executorId, owner);
            }
        }
        if (!token.equals(owner)) {
            throw ApiException.forbidden("token " + token + " did not register executor " + executorId
                    + "; an executor reports with the token it registered with");
        }
    }

    private static boolean scoped(Principal who) {
        return !who.grants().groups().isEmpty();
    }

    private static String tokenName(Principal who) {
        return who.via().startsWith("token:") ? who.via().substring("token:".length()) : who.name();
    }
}
