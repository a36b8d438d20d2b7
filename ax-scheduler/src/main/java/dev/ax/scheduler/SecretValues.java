package dev.ax.scheduler;

import dev.ax.domain.secret.SecretMask;
import dev.ax.store.Tx;
import java.util.Map;
import java.util.Set;

/**
 * The values of stored secrets, read when work that refers to them ({@code {{secret.NAME}}}) is handed
 * to its executor, and at no other time: they are never written to a run, an event or a version.
 */
@FunctionalInterface
public interface SecretValues {
    /** A node with no secret store: every secret counts as not set. */
    SecretValues NONE = (tx, names) -> Map.of();

    /**
     * The values of those of {@code names} that are set, read in {@code tx}; names not set are left out.
     *
     * @throws IllegalArgumentException when a secret is set but this node cannot open it (its key differs), with a
     *                                  message that says so and never holds a value
     */
    Map<String, String> read(Tx tx, Set<String> names);

    /** What this node writes {@code ***} for in text it stores or shows: the value of every secret it knows of. */
    default SecretMask mask() {
        return SecretMask.NONE;
    }
}
