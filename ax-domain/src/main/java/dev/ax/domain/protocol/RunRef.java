package dev.ax.domain.protocol;

/**
 * One attempt of one run — or of one shard of a sharded run: the unit a lease and a
 * fencing token are about.
 *
 * @param attempt the run's attempt, or the shard's own attempt when {@code shard} is set
 * @param shard   the shard index (0-based) of a sharded run ({@code policy.sharding}); {@code null} otherwise
 */
public record RunRef(long instanceId, int attempt, Integer shard) {
    /** An attempt of a run that is not sharded. */
    public RunRef(long instanceId, int attempt) {
        this(instanceId, attempt, null);
    }

    public boolean sharded() {
        return shard != null;
    }
}
