package dev.ax.scheduler;

import dev.ax.domain.task.FieldError;
import dev.ax.domain.task.SecretFields;
import dev.ax.domain.task.TaskDefinition;
import dev.ax.domain.task.ValidationException;
import dev.ax.store.SecretStore.TaskUsing;
import dev.ax.store.Store;
import dev.ax.store.Tx;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * Secrets and the tasks that use them: a task is saved only with secrets that are set (else every run of it would
 * fail at its hand-off), and a secret a task still uses is not deleted. Both are decided in the transaction of the
 * change, under row locks, so a save and a delete that race never both commit.
 */
final class SecretChecks {
    private SecretChecks() {}

    /**
     * Refuses {@code def} (400, one error per field that names a missing secret) unless every secret it uses is set;
     * those are kept from being deleted until {@code tx} ends.
     */
    static void requireSet(Tx tx, Store store, TaskDefinition def) {
        List<SecretFields.Use> uses = SecretFields.uses(def);
        if (uses.isEmpty()) {
            return;
        }
        Set<String> names = uses.stream().map(SecretFields.Use::name).collect(Collectors.toCollection(TreeSet::new));
        Set<String> set = new HashSet<>(store.secrets().holdNames(tx, names));
        List<FieldError> errors = uses.stream()
                .filter(u -> !set.contains(u.name()))
                .map(u -> new FieldError(u.field(), "secret " + u.name() + " is not set; ax secret set " + u.name()))
                .distinct()
                .toList();
        if (!errors.isEmpty()) {
            throw new ValidationException(errors);
        }
    }

    /** The tasks whose current version, or the version their canary rolls out, uses the secret {@code name}; by name. */
    static List<String> tasksUsing(Tx tx, Store store, String name) {
        return store.secrets().definitionsMentioningSecrets(tx).stream()
                .filter(u -> SecretFields.uses(u.definition()).stream()
                        .anyMatch(use -> use.name().equals(name)))
                .map(TaskUsing::taskName)
                .distinct()
                .sorted()
                .toList();
    }
}
